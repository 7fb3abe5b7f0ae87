package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tjake.jlama.model.llama.LlamaTokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Decoding a byte-level BPE vocabulary (a ByteLevel pre-tokenizer, as Llama 3 and Qwen2 have) a token at a time. */
class TokenTextTest {
    @TempDir
    Path tmp;

    private Tokenizer tokenizer;
    private Map<String, Integer> vocab;

    /** The 256 pieces of GPT-2's byte table, ids 0-255, and three merges: "é" as one piece (256), and "caf" (258). */
    @BeforeEach
    void writeTokenizer() throws IOException {
        vocab = ByteLevelVocabulary.write(tmp, List.of(spelled(0xC3) + " " + spelled(0xA9), "c a", "ca f"), Optional.empty());
        tokenizer = new LlamaTokenizer(tmp);
    }

    private static String spelled(int b) {
        return ByteLevelVocabulary.spelled(b);
    }

    private String decodeEach(int... tokens) {
        TokenText text = new TokenText(tokenizer);
        StringBuilder decoded = new StringBuilder();
        for (int token : tokens) {
            decoded.append(text.decode(token));
        }
        return decoded.append(text.finish()).toString();
    }

    @Test
    void aPieceThatSpellsTheBytesOfACharacterDecodesToThatCharacter() {
        assertThat(decodeEach(vocab.get("caf"), 256)).isEqualTo("café");
        assertThat(decodeEach(vocab.get(spelled(' ')), vocab.get("caf"), 256)).isEqualTo(" café");
    }

    @Test
    void aCharacterWhoseBytesComeInSeveralTokensAppearsWithItsLastByte() {
        byte[] smile = "🙂".getBytes(StandardCharsets.UTF_8);
        TokenText text = new TokenText(tokenizer);
        for (int i = 0; i < smile.length - 1; i++) {
            assertThat(text.decode(Byte.toUnsignedInt(smile[i]))).as("byte " + i).isEmpty();
        }
        assertThat(text.decode(Byte.toUnsignedInt(smile[smile.length - 1]))).isEqualTo("🙂");
        assertThat(text.finish()).isEmpty();
    }

    @Test
    void bytesOfASequenceLeftUnfinishedBecomeOneReplacement() {
        assertThat(decodeEach(0xE2, 0x82)).isEqualTo("\uFFFD");
        assertThat(decodeEach(0xE2, vocab.get("caf"))).isEqualTo("\uFFFDcaf");
    }
}

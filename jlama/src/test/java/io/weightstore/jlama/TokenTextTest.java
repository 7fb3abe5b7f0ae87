package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tjake.jlama.model.llama.LlamaTokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.BPETokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Decoding a byte-level BPE vocabulary (a ByteLevel pre-tokenizer, as Llama 3 and Qwen2 have) a token at a time. */
class TokenTextTest {
    @TempDir
    Path tmp;

    private Tokenizer tokenizer;
    private Map<String, Integer> vocab;

    /** The 256 pieces of GPT-2's byte table, ids 0-255, and three merges: "é" as one piece, and "caf". */
    @BeforeEach
    void writeTokenizer() throws IOException {
        vocab = new LinkedHashMap<>();
        for (int b = 0; b < 256; b++) {
            vocab.put(spelled(b), b);
        }
        List<String> merges = List.of(spelled(0xC3) + " " + spelled(0xA9), "c a", "ca f");
        vocab.put(spelled(0xC3) + spelled(0xA9), 256);
        vocab.put("ca", 257);
        vocab.put("caf", 258);
        Map<String, Object> model = new LinkedHashMap<>();
        model.put("type", "BPE");
        model.put("byte_fallback", false);
        model.put("vocab", vocab);
        model.put("merges", merges);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("version", "1.0");
        json.put("added_tokens", List.of());
        // As Llama 3's and Qwen2's: a sequence that ends in ByteLevel (theirs splits by a pattern first).
        json.put("pre_tokenizer", Map.of("type", "Sequence", "pretokenizers", List.of(
                Map.of("type", "ByteLevel", "add_prefix_space", false, "trim_offsets", true, "use_regex", false))));
        json.put("model", model);
        Files.writeString(tmp.resolve("tokenizer.json"), new ObjectMapper().writeValueAsString(json));
        tokenizer = new LlamaTokenizer(tmp);
    }

    /** How the byte table spells byte {@code b}: itself when printable, else a character from U+0100 on. */
    private static String spelled(int b) {
        return Character.toString(BPETokenizer.alteredBytes.getOrDefault(b, b));
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

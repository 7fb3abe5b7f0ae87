package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tjake.jlama.model.llama.LlamaTokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The queued merges give Jlama's own tokens for any text: on the synth checkpoints' SentencePiece vocabulary (byte
 * fallback, special tokens, the whole text one piece), and on a byte-level one whose merges overlap, so that the
 * order of merges (rank first, then the leftmost) decides the tokens.
 */
class BpeEncoderProperties {
    private static final Path SENTENCE_PIECE_DIR = temporaryDirectory("bpe-sentence-piece");
    private static final Path BYTE_LEVEL_DIR = temporaryDirectory("bpe-byte-level");
    private static final Tokenizer SENTENCE_PIECE = sentencePiece();
    private static final Tokenizer BYTE_LEVEL = byteLevel();

    @AfterContainer
    static void removeTokenizers() throws IOException {
        for (Path dir : List.of(SENTENCE_PIECE_DIR, BYTE_LEVEL_DIR)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private static Path temporaryDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> chunks = Arbitraries.oneOf(Arbitraries.strings().withChars("abcxyz ").ofMaxLength(12),
                Arbitraries.of("aaaa", "abcabc", "  ", "<s>", "</s>", "é", "日本", "\t", "\n", "🙂", "zz"));
        return chunks.list().ofMaxSize(16).map(parts -> String.join("", parts));
    }

    @Property(tries = 400)
    void onASentencePieceVocabularyTheTokensAreJlamas(@ForAll("texts") String text) {
        assertThat(BpeEncoder.encode(SENTENCE_PIECE, text)).as(text).containsExactly(SENTENCE_PIECE.encode(text));
    }

    @Property(tries = 400)
    void onAByteLevelVocabularyWithOverlappingMergesTheTokensAreJlamas(@ForAll("texts") String text) {
        assertThat(BpeEncoder.encode(BYTE_LEVEL, text)).as(text).containsExactly(BYTE_LEVEL.encode(text));
    }

    /** One piece of a few thousand merges: where Jlama's scan per merge takes its time, and an order slip would show. */
    @Example
    void aLongPromptOfOnePieceGetsJlamasTokens() {
        SplittableRandom random = new SplittableRandom(11);
        StringBuilder text = new StringBuilder();
        while (text.length() < 1_500) {
            int letters = 1 + random.nextInt(9);
            for (int i = 0; i < letters; i++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            text.append(random.nextInt(10) == 0 ? ", " : " ");
        }
        String prompt = text.toString();
        long[] jlamas = SENTENCE_PIECE.encode(prompt);
        assertThat(jlamas.length).as("merges happened").isLessThan(prompt.length() / 2);
        assertThat(BpeEncoder.encode(SENTENCE_PIECE, prompt)).containsExactly(jlamas);
    }

    @Example
    void anEmptyTextHasNoTokens() {
        assertThat(BpeEncoder.encode(SENTENCE_PIECE, "")).isEmpty();
    }

    private static Tokenizer sentencePiece() {
        try {
            // A vocabulary of 8,192 pieces: every pair of letters merges, and many triples.
            SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 64, 1, 4, 2, 128, 8192, DType.F32, 1 << 20, 5), SENTENCE_PIECE_DIR,
                    b -> {});
            return new LlamaTokenizer(SENTENCE_PIECE_DIR);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * GPT-2's 256 byte pieces, split into words first as Llama 3's pattern does, and merges that compete: "a a" before
     * "aa a" and "aa aa", so "aaaa" is "aa" twice; "b c" ranks above "a b", so "abc" is "a" "bc"; and "a bc" joins those.
     */
    private static Tokenizer byteLevel() {
        List<String> merges = List.of("a a", "b c", "aa a", "aa aa", "a b", "a bc", "x y", "y z", "xy z", "Ġ a", "Ġa bc");
        try {
            ByteLevelVocabulary.write(BYTE_LEVEL_DIR, merges, Optional.of(" ?\\p{L}+| ?[^\\s\\p{L}]+|\\s+"));
            return new LlamaTokenizer(BYTE_LEVEL_DIR);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.weightstore.bench.jmh;

import com.github.tjake.jlama.model.llama.LlamaTokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import io.weightstore.bench.WorkDirectory;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.jlama.BpeEncoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Tokenizing a prompt of {@code chars} characters of words on a SentencePiece vocabulary of 8,192 pieces (the synth
 * checkpoints' kind, with no pre-tokenizer, as Llama 2's: the whole prompt is one piece): {@code jlama} is Jlama's own
 * {@code encode}, which rescans the piece for every merge, and {@code queued} is {@link BpeEncoder}, which gives the
 * same tokens.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
@Fork(1)
public class BpeEncodeBenchmark {
    @Param({"500", "2000", "8000"})
    public int chars;

    private Path dir;
    private Tokenizer tokenizer;
    private String prompt;

    @Setup(Level.Trial)
    public void tokenizer() throws IOException {
        dir = Files.createTempDirectory("bench-bpe");
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 64, 1, 4, 2, 128, 8192, DType.F32, 1 << 20, 5), dir, b -> {});
        tokenizer = new LlamaTokenizer(dir);
        SplittableRandom random = new SplittableRandom(3);
        StringBuilder text = new StringBuilder();
        while (text.length() < chars) {
            int letters = 1 + random.nextInt(9);
            for (int i = 0; i < letters; i++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            text.append(' ');
        }
        prompt = text.substring(0, chars);
    }

    @TearDown(Level.Trial)
    public void remove() throws IOException {
        WorkDirectory.delete(dir);
    }

    @Benchmark
    public long[] jlama() {
        return tokenizer.encode(prompt);
    }

    @Benchmark
    public long[] queued() {
        return BpeEncoder.encode(tokenizer, prompt);
    }
}

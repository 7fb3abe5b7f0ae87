package io.weightstore.format.synth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.DType;
import io.weightstore.format.FileKind;
import io.weightstore.format.TensorSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SyntheticCheckpointTest {
    @TempDir
    Path tmp;

    @Test
    void sameSeedGivesTheSameBytesAndAnotherSeedDoesNot() throws IOException {
        SynthSpec spec = SynthSpec.tiny(DType.BF16, 11);
        CheckpointDirectory a = SyntheticCheckpoint.write(spec, tmp.resolve("a"), b -> {});
        CheckpointDirectory b = SyntheticCheckpoint.write(spec, tmp.resolve("b"), x -> {});
        CheckpointDirectory c = SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 12), tmp.resolve("c"), x -> {});
        assertThat(a.files()).extracting(CheckpointFile::path).isEqualTo(b.files().stream().map(CheckpointFile::path).toList());
        for (CheckpointFile file : a.files(FileKind.WEIGHT)) {
            byte[] bytesA = Files.readAllBytes(tmp.resolve("a").resolve(file.path()));
            assertThat(bytesA).as(file.path()).isEqualTo(Files.readAllBytes(tmp.resolve("b").resolve(file.path())));
            assertThat(bytesA).as(file.path()).isNotEqualTo(Files.readAllBytes(tmp.resolve("c").resolve(file.path())));
        }
    }

    @Test
    void shardsRespectTheSizeLimitAndTheIndexCoversEveryTensor() throws IOException {
        SynthSpec spec = new SynthSpec(SynthSpec.LLAMA, 128, 3, 4, 2, 256, 1000, DType.F32, 200_000, 1);
        CheckpointDirectory dir = SyntheticCheckpoint.write(spec, tmp.resolve("ckpt"), b -> {});
        List<TensorSpec> tensors = LlamaTensors.of(spec);
        assertThat(dir.index().orElseThrow().weightMap()).hasSize(tensors.size());
        for (CheckpointFile shard : dir.files(FileKind.WEIGHT)) {
            long data = shard.header().orElseThrow().dataLength();
            boolean singleOversized = shard.header().orElseThrow().tensors().size() == 1;
            assertThat(data <= spec.maxShardSize() || singleOversized).as(shard.path()).isTrue();
        }
        assertThat(dir.files(FileKind.WEIGHT).stream().mapToLong(f -> f.header().orElseThrow().dataLength()).sum())
                .isEqualTo(spec.weightBytes());
    }

    @Test
    void aPlanSizesWhatItsWriteWritesToTheByte() throws IOException {
        SynthSpec spec = new SynthSpec(SynthSpec.LLAMA, 128, 3, 4, 2, 256, 1000, DType.F32, 200_000, 1);
        SyntheticCheckpoint.Plan plan = SyntheticCheckpoint.Plan.of(spec);
        CheckpointDirectory dir = SyntheticCheckpoint.write(plan, tmp.resolve("ckpt"), b -> {});
        assertThat(dir.totalBytes()).isEqualTo(plan.bytes());
    }

    @Test
    void configDescribesTheTensorShapes() throws IOException {
        SynthSpec spec = SynthSpec.tiny(DType.F16, 3);
        SyntheticCheckpoint.write(spec, tmp.resolve("ckpt"), b -> {});
        JsonNode config = new ObjectMapper().readTree(tmp.resolve("ckpt/config.json").toFile());
        assertThat(config.get("model_type").asText()).isEqualTo("llama");
        assertThat(config.get("hidden_size").asInt()).isEqualTo(spec.hidden());
        assertThat(config.get("num_key_value_heads").asInt()).isEqualTo(spec.kvHeads());
        assertThat(config.get("vocab_size").asInt()).isEqualTo(spec.vocab());
        assertThat(config.get("torch_dtype").asText()).isEqualTo("float16");
        JsonNode tokenizer = new ObjectMapper().readTree(tmp.resolve("ckpt/tokenizer.json").toFile());
        assertThat(tokenizer.get("model").get("vocab").size()).isEqualTo(spec.vocab());
    }

    @Test
    void refusesToOverwriteACheckpoint() throws IOException {
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 1), tmp.resolve("ckpt"), b -> {});
        assertThatThrownBy(() -> SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 1), tmp.resolve("ckpt"), b -> {}))
                .hasMessageContaining("already holds a checkpoint");
    }

    @Test
    void aSynthThatFailsMidwayRemovesTheFilesItWroteAndNamesTheOneItWasWriting() throws IOException {
        Path out = Files.createDirectory(tmp.resolve("ckpt"));
        Path notes = Files.writeString(out.resolve("notes.txt"), "not synth's");
        SynthSpec spec = new SynthSpec(SynthSpec.LLAMA, 128, 3, 4, 2, 256, 1000, DType.F32, 200_000, 1);
        int shards = SyntheticCheckpoint.shard(LlamaTensors.of(spec), spec.maxShardSize()).size();
        Path lastShard = out.resolve(String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", shards, shards));
        // Once the first weights are written, a directory takes the last shard's name: that shard cannot be put in place.
        Runnable blockLastShard = () -> {
            try {
                Files.createDirectories(lastShard);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        assertThatThrownBy(() -> SyntheticCheckpoint.write(spec, out, written -> blockLastShard.run()))
                .isInstanceOf(IOException.class).hasMessageStartingWith("writing " + lastShard + ": ");
        try (Stream<Path> left = Files.list(out)) {
            assertThat(left).as("what was there before, and the blocking directory").containsExactlyInAnyOrder(notes, lastShard);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {10L << 20, 100L << 20, 1L << 30, 4L << 30, 16L << 30})
    void sizePresetsLandNearTheTarget(long target) {
        SynthSpec spec = SynthSpec.forSize(target, DType.BF16, 1L << 30, 0);
        assertThat(spec.weightBytes()).isBetween(target * 7 / 10, target);
        assertThat(spec.layers()).isGreaterThanOrEqualTo(Math.max(1, spec.hidden() / 128));
    }

    @Test
    void rejectsInconsistentDimensionsWithNameAndValue() {
        assertThatThrownBy(() -> new SynthSpec(SynthSpec.LLAMA, 64, 1, 3, 1, 128, 512, DType.F32, 1 << 20, 0))
                .hasMessageContaining("hidden=64 heads=3");
        assertThatThrownBy(() -> new SynthSpec(SynthSpec.LLAMA, 64, 1, 4, 3, 128, 512, DType.F32, 1 << 20, 0))
                .hasMessageContaining("kvHeads=3");
        assertThatThrownBy(() -> new SynthSpec(SynthSpec.LLAMA, 64, 1, 4, 2, 128, 100, DType.F32, 1 << 20, 0))
                .hasMessageContaining("vocab=100");
        assertThatThrownBy(() -> new SynthSpec("gpt2", 64, 1, 4, 2, 128, 512, DType.F32, 1 << 20, 0))
                .hasMessageContaining("arch=gpt2");
    }
}

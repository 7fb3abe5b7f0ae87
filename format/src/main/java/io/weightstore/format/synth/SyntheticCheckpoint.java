package io.weightstore.format.synth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsLayout;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorInfo;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.WeightIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Writes a synthetic checkpoint in Hugging Face layout: config.json, a working tokenizer, sharded
 * safetensors files and their index. Weights are pseudo-random, scaled like an initialised model so
 * that Jlama can run it; every tensor is a pure function of the seed and its name, so the same spec
 * always gives the same bytes.
 */
public final class SyntheticCheckpoint {
    /** Map entries by key: {@code Map.of} iterates in an order that changes from one JVM to the next, and the same flags must give the same bytes. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    private static final int CONTEXT_LENGTH = 2048;
    private static final int CHUNK_BYTES = 1 << 20;
    private static final Map<String, String> SHARD_METADATA = Map.of("format", "pt");

    private SyntheticCheckpoint() {}

    /**
     * Writes the checkpoint into {@code out} (created if missing; must not already hold a checkpoint). A write that
     * fails removes the files it created, and {@code out} and its parents if it created them and they are empty
     * again: left behind, they would read as a checkpoint and make the next write into {@code out} refuse.
     *
     * @param progress told the weight bytes written since its last call, after each chunk
     * @throws IOException naming the file being written when writing failed
     */
    public static CheckpointDirectory write(SynthSpec spec, Path out, LongConsumer progress) throws IOException {
        return write(Plan.of(spec), out, progress);
    }

    /** Writes the checkpoint {@code plan} describes, as {@link #write(SynthSpec, Path, LongConsumer)} does: for a caller that sized it. */
    public static CheckpointDirectory write(Plan plan, Path out, LongConsumer progress) throws IOException {
        if (Files.exists(out.resolve("config.json")) || Files.exists(out.resolve(WeightIndex.FILE_NAME))) {
            throw new IOException("output directory already holds a checkpoint: " + out);
        }
        Written written = Written.creating(out);
        try {
            for (Map.Entry<String, String> json : plan.metadata().entrySet()) {
                written.file(json.getKey(), file -> Files.writeString(file, json.getValue(), StandardCharsets.UTF_8));
            }
            WeightFiller filler = new WeightFiller(plan.spec(), progress);
            for (Map.Entry<String, List<TensorSpec>> shard : plan.shards().entrySet()) {
                written.file(shard.getKey(),
                        file -> SafetensorsWriter.write(file, shard.getValue(), SHARD_METADATA, filler::fill));
            }
            // The index last: its weight map names every shard, so it appears only once they all do.
            written.file(WeightIndex.FILE_NAME, file -> Files.writeString(file, plan.index(), StandardCharsets.UTF_8));
            return CheckpointDirectory.read(out);
        } catch (IOException | RuntimeException e) {
            written.remove(e);
            throw e;
        }
    }

    /**
     * What a write of {@code spec} puts where, known before a byte of it is written. A caller that checks the room for it
     * writes the same plan it sized, so the metadata files (the tokenizer's JSON grows with the vocabulary) are built once.
     */
    public record Plan(SynthSpec spec, Map<String, String> metadata, Map<String, List<TensorSpec>> shards, String index) {
        public static Plan of(SynthSpec spec) throws IOException {
            Map<String, String> metadata = new LinkedHashMap<>();
            metadata.put("config.json", json(config(spec)));
            metadata.put("generation_config.json",
                    json(Map.of("bos_token_id", SynthTokenizer.BOS_ID, "eos_token_id", SynthTokenizer.EOS_ID)));
            metadata.put("tokenizer.json", json(SynthTokenizer.tokenizerJson(spec.vocab())));
            metadata.put("tokenizer_config.json", json(SynthTokenizer.tokenizerConfigJson(CONTEXT_LENGTH)));

            List<List<TensorSpec>> tensors = shard(LlamaTensors.of(spec), spec.maxShardSize());
            Map<String, List<TensorSpec>> shards = new LinkedHashMap<>();
            Map<String, String> weightMap = new LinkedHashMap<>();
            long totalSize = 0;
            for (int i = 0; i < tensors.size(); i++) {
                String name = String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", i + 1, tensors.size());
                shards.put(name, tensors.get(i));
                for (TensorSpec tensor : tensors.get(i)) {
                    weightMap.put(tensor.name(), name);
                    totalSize += tensor.byteSize();
                }
            }
            return new Plan(spec, metadata, shards, json(Map.of("metadata", Map.of("total_size", totalSize), "weight_map", weightMap)));
        }

        /** The bytes {@link #write(Plan, Path, LongConsumer)} puts on disk for this plan: every file's, in full. */
        public long bytes() {
            long bytes = utf8Length(index);
            for (String json : metadata.values()) {
                bytes += utf8Length(json);
            }
            for (List<TensorSpec> shard : shards.values()) {
                bytes += SafetensorsLayout.of(shard, SHARD_METADATA).header().fileLength();
            }
            return bytes;
        }

        private static long utf8Length(String text) {
            return text.getBytes(StandardCharsets.UTF_8).length;
        }
    }

    /** Writes one file to the path it is given. */
    @FunctionalInterface
    private interface FileWrite {
        void to(Path file) throws IOException;
    }

    /** What one write created, in the order it did: removed again, newest first, when the write fails. */
    private static final class Written {
        private final Path out;
        private final List<Path> created = new ArrayList<>();

        private Written(Path out) {
            this.out = out;
        }

        /** Creates {@code out} and its missing parents, remembering which were missing. */
        static Written creating(Path out) throws IOException {
            Written written = new Written(out);
            for (Path dir = out.toAbsolutePath(); dir != null && Files.notExists(dir); dir = dir.getParent()) {
                written.created.addFirst(dir);
            }
            Files.createDirectories(out);
            return written;
        }

        /** Writes {@code name} in {@code out}; a failure names the file, since the file system's reason (a full disk) may not. */
        void file(String name, FileWrite write) throws IOException {
            Path file = out.resolve(name);
            if (Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
                created.add(file);
            }
            try {
                write.to(file);
            } catch (IOException e) {
                throw new IOException("writing " + file + ": " + reason(e), e);
            }
        }

        void remove(Exception failure) {
            for (Path path : created.reversed()) {
                try {
                    Files.deleteIfExists(path);
                } catch (DirectoryNotEmptyException e) {
                    // Someone else's file went into a directory this write made: that file, and so the directory, stay.
                } catch (IOException e) {
                    failure.addSuppressed(e);
                }
            }
        }

        private static String reason(IOException e) {
            if (e instanceof FileSystemException f && f.getReason() != null) {
                return f.getReason();
            }
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }

    private static Map<String, Object> config(SynthSpec spec) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("architectures", List.of("LlamaForCausalLM"));
        config.put("model_type", "llama");
        config.put("hidden_size", spec.hidden());
        config.put("intermediate_size", spec.intermediate());
        config.put("num_attention_heads", spec.heads());
        config.put("num_key_value_heads", spec.kvHeads());
        config.put("num_hidden_layers", spec.layers());
        config.put("vocab_size", spec.vocab());
        config.put("max_position_embeddings", CONTEXT_LENGTH);
        config.put("rms_norm_eps", 1e-5);
        config.put("rope_theta", 10000.0);
        config.put("hidden_act", "silu");
        config.put("bos_token_id", SynthTokenizer.BOS_ID);
        config.put("eos_token_id", SynthTokenizer.EOS_ID);
        config.put("tie_word_embeddings", false);
        config.put("torch_dtype", switch (spec.dtype()) {
            case F32 -> "float32";
            case BF16 -> "bfloat16";
            case F16 -> "float16";
            default -> throw new IllegalStateException("unsupported synth dtype " + spec.dtype());
        });
        config.put("weightstore_synth_seed", spec.seed());
        return config;
    }

    /** Fills shards in HF order up to the size limit; an oversized tensor gets a shard of its own. */
    static List<List<TensorSpec>> shard(List<TensorSpec> tensors, long maxShardSize) {
        List<List<TensorSpec>> shards = new ArrayList<>();
        List<TensorSpec> current = new ArrayList<>();
        long currentBytes = 0;
        for (TensorSpec tensor : tensors) {
            if (!current.isEmpty() && currentBytes + tensor.byteSize() > maxShardSize) {
                shards.add(current);
                current = new ArrayList<>();
                currentBytes = 0;
            }
            current.add(tensor);
            currentBytes += tensor.byteSize();
        }
        if (!current.isEmpty()) {
            shards.add(current);
        }
        return shards;
    }

    private static String json(Object value) throws IOException {
        return JSON.writeValueAsString(value) + "\n";
    }

    /** Streams a tensor's pseudo-random values through one reused chunk buffer. */
    private static final class WeightFiller {
        private final SynthSpec spec;
        private final LongConsumer progress;
        private final ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);

        WeightFiller(SynthSpec spec, LongConsumer progress) {
            this.spec = spec;
            this.progress = progress;
        }

        void fill(TensorInfo tensor, FileChannel out) throws IOException {
            SplittableRandom random = new SplittableRandom(spec.seed() * 0x9E3779B97F4A7C15L + tensor.name().hashCode());
            boolean norm = LlamaTensors.isNorm(tensor.name());
            // Uniform in ±1/sqrt(fan_in) keeps activations of a random model finite through every layer.
            float scale = (float) (1.0 / Math.sqrt(tensor.shape().getLast()));
            int elementBytes = tensor.dtype().bits() / Byte.SIZE;
            long remaining = tensor.numel();
            while (remaining > 0) {
                chunk.clear();
                int count = (int) Math.min(remaining, CHUNK_BYTES / elementBytes);
                for (int i = 0; i < count; i++) {
                    float value = norm ? 1.0f : (float) (random.nextDouble(-1.0, 1.0) * scale);
                    put(tensor.dtype(), value);
                }
                SafetensorsWriter.writeFully(out, chunk.flip());
                remaining -= count;
                progress.accept((long) count * elementBytes);
            }
        }

        private void put(DType dtype, float value) {
            switch (dtype) {
                case F32 -> chunk.putFloat(value);
                case BF16 -> chunk.putShort((short) (Float.floatToRawIntBits(value) >>> 16));
                case F16 -> chunk.putShort(Float.floatToFloat16(value));
                default -> throw new IllegalStateException("unsupported synth dtype " + dtype);
            }
        }
    }
}

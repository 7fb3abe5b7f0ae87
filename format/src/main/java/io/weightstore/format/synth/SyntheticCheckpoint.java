package io.weightstore.format.synth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorInfo;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.WeightIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    private SyntheticCheckpoint() {}

    /**
     * Writes the checkpoint into {@code out} (created if missing; must not already hold a checkpoint).
     *
     * @param progress told the weight bytes written since its last call, after each chunk
     */
    public static CheckpointDirectory write(SynthSpec spec, Path out, LongConsumer progress) throws IOException {
        Files.createDirectories(out);
        if (Files.exists(out.resolve("config.json")) || Files.exists(out.resolve(WeightIndex.FILE_NAME))) {
            throw new IOException("output directory already holds a checkpoint: " + out);
        }
        writeJson(out.resolve("config.json"), config(spec));
        writeJson(out.resolve("generation_config.json"),
                Map.of("bos_token_id", SynthTokenizer.BOS_ID, "eos_token_id", SynthTokenizer.EOS_ID));
        writeJson(out.resolve("tokenizer.json"), SynthTokenizer.tokenizerJson(spec.vocab()));
        writeJson(out.resolve("tokenizer_config.json"), SynthTokenizer.tokenizerConfigJson(CONTEXT_LENGTH));

        List<List<TensorSpec>> shards = shard(LlamaTensors.of(spec), spec.maxShardSize());
        Map<String, String> weightMap = new LinkedHashMap<>();
        long totalSize = 0;
        WeightFiller filler = new WeightFiller(spec, progress);
        for (int i = 0; i < shards.size(); i++) {
            String name = String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", i + 1, shards.size());
            for (TensorSpec tensor : shards.get(i)) {
                weightMap.put(tensor.name(), name);
                totalSize += tensor.byteSize();
            }
            SafetensorsWriter.write(out.resolve(name), shards.get(i), Map.of("format", "pt"), filler::fill);
        }
        writeJson(out.resolve(WeightIndex.FILE_NAME),
                Map.of("metadata", Map.of("total_size", totalSize), "weight_map", weightMap));
        return CheckpointDirectory.read(out);
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

    private static void writeJson(Path file, Object value) throws IOException {
        Files.writeString(file, JSON.writeValueAsString(value) + "\n", StandardCharsets.UTF_8);
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

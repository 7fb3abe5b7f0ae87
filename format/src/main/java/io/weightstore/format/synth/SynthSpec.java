package io.weightstore.format.synth;

import io.weightstore.format.DType;
import java.util.List;

/**
 * Dimensions of a synthetic Llama-architecture checkpoint.
 *
 * @param maxShardSize largest shard file in bytes; a tensor larger than this gets a shard of its own
 */
public record SynthSpec(String arch, int hidden, int layers, int heads, int kvHeads, int intermediate, int vocab,
        DType dtype, long maxShardSize, long seed) {

    public static final String LLAMA = "llama";
    public static final List<DType> DTYPES = List.of(DType.F32, DType.BF16, DType.F16);

    /** Smallest vocabulary that holds the synthetic tokenizer's special, byte and character tokens. */
    public static final int MIN_VOCAB = SynthTokenizer.BASE_VOCAB;

    /** A model small enough to generate in a test within seconds. */
    public static SynthSpec tiny(DType dtype, long seed) {
        return new SynthSpec(LLAMA, 64, 2, 4, 2, 128, 512, dtype, 64L << 10, seed);
    }

    public SynthSpec {
        if (!LLAMA.equals(arch)) {
            throw new IllegalArgumentException("only arch=llama is supported, found arch=" + arch);
        }
        if (!DTYPES.contains(dtype)) {
            throw new IllegalArgumentException("dtype must be one of f32, bf16, f16: dtype=" + dtype);
        }
        positive("hidden", hidden);
        positive("layers", layers);
        positive("heads", heads);
        positive("kv-heads", kvHeads);
        positive("intermediate", intermediate);
        if (hidden % heads != 0 || (hidden / heads) % 2 != 0) {
            throw new IllegalArgumentException("hidden must split into heads of even size: hidden=" + hidden + " heads=" + heads);
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads must be a multiple of kv-heads: heads=" + heads + " kvHeads=" + kvHeads);
        }
        if (vocab < MIN_VOCAB) {
            throw new IllegalArgumentException("vocab must be >= " + MIN_VOCAB + ": vocab=" + vocab);
        }
        if (maxShardSize <= 0) {
            throw new IllegalArgumentException("max shard size must be > 0: maxShardSize=" + maxShardSize);
        }
    }

    public int headDim() {
        return hidden / heads;
    }

    public int kvDim() {
        return kvHeads * headDim();
    }

    /** Weight bytes of the whole checkpoint (tensor data, without headers). */
    public long weightBytes() {
        return LlamaTensors.of(this).stream().mapToLong(t -> t.byteSize()).sum();
    }

    /**
     * Dimensions for a checkpoint of about {@code targetBytes}: the widest hidden size, on a ladder of
     * common ones, whose layer count stays at least hidden/128 (the depth-to-width ratio of real Llamas).
     */
    public static SynthSpec forSize(long targetBytes, DType dtype, long maxShardSize, long seed) {
        int[] ladder = {64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 5120, 8192};
        SynthSpec best = null;
        for (int hidden : ladder) {
            int vocab = hidden < 256 ? 512 : 32000;
            int heads = Math.max(2, hidden / 64);
            int kvHeads = Math.max(1, heads / 4);
            int intermediate = Math.ceilDiv(hidden * 8 / 3, 64) * 64;
            SynthSpec oneLayer = new SynthSpec(LLAMA, hidden, 1, heads, kvHeads, intermediate, vocab, dtype, maxShardSize, seed);
            SynthSpec twoLayers = new SynthSpec(LLAMA, hidden, 2, heads, kvHeads, intermediate, vocab, dtype, maxShardSize, seed);
            long perLayer = twoLayers.weightBytes() - oneLayer.weightBytes();
            long fixed = oneLayer.weightBytes() - perLayer;
            long layers = (targetBytes - fixed) / perLayer;
            if (layers >= Math.max(1, hidden / 128) || best == null && layers >= 1) {
                best = new SynthSpec(LLAMA, hidden, (int) Math.min(layers, 1024), heads, kvHeads, intermediate, vocab,
                        dtype, maxShardSize, seed);
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("size " + targetBytes + " bytes is too small for a synthetic checkpoint;"
                    + " the smallest is about " + tiny(dtype, seed).weightBytes() + " bytes");
        }
        return best;
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0: " + name + "=" + value);
        }
    }
}

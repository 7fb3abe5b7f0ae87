package io.weightstore.jlama;

import com.github.tjake.jlama.model.DistributedContext;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.safetensors.TensorInfo;
import com.github.tjake.jlama.safetensors.WeightLoader;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.BFloat16BufferTensor;
import com.github.tjake.jlama.tensor.Float16BufferTensor;
import com.github.tjake.jlama.tensor.FloatBufferTensor;
import com.github.tjake.jlama.tensor.Q8ByteBufferTensor;
import com.github.tjake.jlama.tensor.TensorShape;
import com.github.tjake.jlama.util.Pair;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.ShardRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Jlama's {@link WeightLoader} over a checkpoint in the store. Each {@code load} reads exactly what
 * the caller's shard needs straight into memory owned by the tensor: the rows of a row-sharded
 * tensor as one range, the columns of a column-sharded one as one strided read, so no rank reads
 * the whole checkpoint. Thread-safe: Jlama loads layers in parallel, and every call is one
 * independent read on a thread-safe store client.
 */
public final class StoreWeightLoader implements WeightLoader {
    private final CheckpointSource source;
    private final Map<String, CheckpointSource.Location> locations;
    private final Map<String, TensorInfo> tensorInfo;
    private final Map<String, String> metadata;
    private final DType modelDType;

    public StoreWeightLoader(CheckpointSource source) throws IOException {
        this.source = source;
        this.locations = source.tensors();
        Map<String, TensorInfo> infos = new LinkedHashMap<>();
        for (CheckpointSource.Location location : locations.values()) {
            jlamaDType(location.info().dtype()).ifPresent(dtype -> infos.put(location.info().name(), new TensorInfo(dtype,
                    location.info().shape().stream().mapToLong(Long::longValue).toArray(),
                    new long[] {location.info().begin(), location.info().end()})));
        }
        this.tensorInfo = Collections.unmodifiableMap(infos);
        this.metadata = Map.of("format", "pt", "weightstore.checkpoint", source.checkpointId());
        this.modelDType = majority(infos);
    }

    private static Optional<DType> jlamaDType(io.weightstore.format.DType dtype) {
        try {
            return Optional.of(DType.valueOf(dtype.name()));
        } catch (IllegalArgumentException unsupported) {
            return Optional.empty();
        }
    }

    /** The dtype most weights have, as Jlama's own loader decides it (F16 counts as F32, which Jlama computes in). */
    private static DType majority(Map<String, TensorInfo> infos) {
        EnumMap<DType, Integer> counts = new EnumMap<>(DType.class);
        infos.forEach((name, info) -> {
            if (!name.endsWith(".qb")) {
                counts.merge(info.dType, 1, Integer::sum);
            }
        });
        DType most = counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(DType.F32);
        return most == DType.F16 ? DType.F32 : most;
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public Map<String, TensorInfo> tensorInfoMap() {
        return tensorInfo;
    }

    @Override
    public DType getModelDType() {
        return modelDType;
    }

    @Override
    public AbstractTensor load(String name, DistributedContext dctx, boolean sparseRows, boolean sparseColumns) {
        CheckpointSource.Location location = locations.get(name);
        TensorInfo info = tensorInfo.get(name);
        if (location == null || info == null) {
            throw new NoSuchElementException(name + " is not in checkpoint " + source.checkpointId());
        }
        if (dctx != null && info.shape.length != 2) {
            throw new IllegalArgumentException("tensor " + name + " has " + info.shape.length + " dimensions; sharded loads need 2");
        }
        try {
            TensorShape shape = TensorShape.of(info.shape);
            ShardRead read;
            if (dctx != null && sparseRows) {
                int rows = info.shape[0];
                int start = dctx.getShardOffsetForLength(rows);
                int length = dctx.getShardLength(rows);
                read = ShardRead.of(location.info(), 0, start, length);
                shape = TensorShape.sparseRow(info.shape, Pair.of(start, length));
            } else if (dctx != null && sparseColumns && dctx.hasModelShard() && info.dType == DType.I8) {
                // Q8 block scales are per row segment: read whole and cut, as Jlama's own loader does.
                read = ShardRead.of(location.info(), 0, 0, info.shape[0]);
                int columns = info.shape[1];
                MemorySegment memory = Arena.ofAuto().allocate(Math.max(1, read.bytes()), 64).asSlice(0, read.bytes());
                source.read(location, read, memory);
                return tensor(name, info.dType, shape, memory.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN), dctx, sparseRows)
                        .sparsify(dctx.getShardOffsetForLength(columns), dctx.getShardLength(columns));
            } else if (dctx != null && sparseColumns && dctx.hasModelShard()) {
                int columns = info.shape[1];
                int start = dctx.getShardOffsetForLength(columns);
                int length = dctx.getShardLength(columns);
                read = ShardRead.of(location.info(), 1, start, length);
                shape = TensorShape.sparseColumn(info.shape, Pair.of(start, length));
            } else {
                read = ShardRead.of(location.info(), 0, 0, info.shape[0]);
            }
            if (read.bytes() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("tensor " + name + " needs " + read.bytes()
                        + " bytes on this shard; Jlama's buffer tensors hold at most 2 GiB");
            }
            // Memory owned by the tensor for as long as Jlama keeps it: freed by the collector with it.
            MemorySegment memory = Arena.ofAuto().allocate(Math.max(1, read.bytes()), 64).asSlice(0, read.bytes());
            source.read(location, read, memory);
            ByteBuffer bytes = memory.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            return tensor(name, info.dType, shape, bytes, dctx, sparseRows);
        } catch (IOException e) {
            throw new UncheckedIOException("loading " + name + " from " + source.checkpointId() + ": " + e.getMessage(), e);
        }
    }

    private AbstractTensor tensor(String name, DType dtype, TensorShape shape, ByteBuffer bytes, DistributedContext dctx,
            boolean sparseRows) {
        return switch (dtype) {
            case F32 -> new FloatBufferTensor(name, bytes.asFloatBuffer(), shape, true);
            case BF16 -> new BFloat16BufferTensor(name, bytes.asShortBuffer(), shape, true);
            case F16 -> modelDType == DType.F32 ? widen(bytes, shape) : new Float16BufferTensor(name, bytes.asShortBuffer(), shape, true);
            case I8 -> new Q8ByteBufferTensor(name, bytes, (FloatBufferTensor) load(name + ".qb", dctx, sparseRows, false), shape, true);
            default -> throw new IllegalArgumentException("tensor " + name + " has dtype " + dtype + ", which Jlama cannot compute with");
        };
    }

    /** F16 weights in an F32 model become F32, as Jlama's own loader does. */
    private static AbstractTensor widen(ByteBuffer halfs, TensorShape shape) {
        int count = halfs.remaining() / 2;
        ByteBuffer floats = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            floats.putFloat(i * 4, Float.float16ToFloat(halfs.getShort(i * 2)));
        }
        return new FloatBufferTensor(floats.asFloatBuffer(), shape, true);
    }

    /** Jlama closes the loader with the model; the checkpoint source belongs to whoever opened it. */
    @Override
    public void close() {}
}

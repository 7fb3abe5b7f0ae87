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
import io.weightstore.store.api.StoreException;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.ShardRead;
import io.weightstore.weights.loader.TensorMemory;
import io.weightstore.weights.loader.TensorPrefetcher;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * Jlama's {@link WeightLoader} over a checkpoint in the store. Files whose slices are all in pools on
 * this host are not read: Jlama gets read-only views of the mapped pools, as its own loader gives
 * views of mapped files, while their checks run (whoever loads the model awaits them, see
 * {@link JlamaModels}). Otherwise a model loaded whole takes its tensors from a {@link TensorPrefetcher}: the checkpoint is read in file order, many tensors per
 * scatter-gather read, while Jlama builds the layers it already has. A model split over processes
 * reads tensor by tensor, each shard exactly its rows (one range) or columns (one strided read), so
 * no rank reads the whole checkpoint. Thread-safe: Jlama loads layers in parallel.
 */
public final class StoreWeightLoader implements WeightLoader {
    /** Large enough that each batch is read from every node at once; four of them queued, two read at a time. */
    static final long PREFETCH_BATCH = 256L << 20;
    static final int PREFETCH_AHEAD = 4;

    private final CheckpointSource source;
    private final Map<String, CheckpointSource.Location> locations;
    private final Map<String, TensorInfo> tensorInfo;
    /** Tensors of dtypes Jlama has no type for, left out of {@link #tensorInfoMap}, so that asking for one names its dtype. */
    private final Map<String, io.weightstore.format.DType> unsupported = new LinkedHashMap<>();
    private final Map<String, String> metadata;
    private final DType modelDType;
    private final Optional<TensorPrefetcher> wholeTensors;
    /**
     * Set when the loader closes, which a load that failed does. Jlama loads layers in parallel and does not stop the
     * others when one fails, and they would go on reading from a source that is closing.
     */
    private volatile boolean closed;

    /**
     * @param wholeModel the model is loaded whole in this process: read the checkpoint ahead at once, so
     *     the first tensors are in memory by the time Jlama asks; false when this process holds one shard
     */
    public StoreWeightLoader(CheckpointSource source, boolean wholeModel) throws IOException {
        this.source = source;
        this.locations = source.tensors();
        Map<String, TensorInfo> infos = new LinkedHashMap<>();
        for (CheckpointSource.Location location : locations.values()) {
            Optional<DType> dtype = jlamaDType(location.info().dtype());
            if (dtype.isEmpty()) {
                unsupported.put(location.info().name(), location.info().dtype());
                continue;
            }
            infos.put(location.info().name(), new TensorInfo(dtype.get(), location.info().shape().stream().mapToLong(Long::longValue)
                    .toArray(), new long[] {location.info().begin(), location.info().end()}));
        }
        this.tensorInfo = Collections.unmodifiableMap(infos);
        this.metadata = Map.of("format", "pt", "weightstore.checkpoint", source.checkpointId().value());
        this.modelDType = majority(infos);
        this.wholeTensors = wholeModel ? Optional.of(source.prefetch(PREFETCH_BATCH, PREFETCH_AHEAD)) : Optional.empty();
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
        if (closed) {
            throw new IllegalStateException("the loader of checkpoint " + source.checkpointId() + " is closed (the load it served"
                    + " failed): " + name + " is not read");
        }
        CheckpointSource.Location location = locations.get(name);
        TensorInfo info = tensorInfo.get(name);
        if (unsupported.containsKey(name)) {
            throw new IllegalArgumentException("tensor " + name + " of checkpoint " + source.checkpointId() + " has dtype "
                    + unsupported.get(name) + ", which Jlama cannot load");
        }
        if (location == null || info == null) {
            throw new NoSuchElementException(name + " is not in checkpoint " + source.checkpointId());
        }
        boolean sharded = dctx != null && dctx.hasModelShard() && (sparseRows || sparseColumns);
        if (sharded && info.shape.length != 2) {
            throw new IllegalArgumentException("tensor " + name + " has " + info.shape.length + " dimensions; sharded loads need 2");
        }
        try {
            if (!sharded) {
                return tensor(name, info.dType, TensorShape.of(info.shape), whole(location), dctx, false);
            }
            if (sparseRows) {
                int rows = info.shape[0];
                int start = dctx.getShardOffsetForLength(rows);
                int length = dctx.getShardLength(rows);
                MemorySegment rowShard = read(location, ShardRead.of(location.info(), 0, start, length));
                return tensor(name, info.dType, TensorShape.sparseRow(info.shape, Pair.of(start, length)), rowShard, dctx, true);
            }
            int columns = info.shape[1];
            int start = dctx.getShardOffsetForLength(columns);
            int length = dctx.getShardLength(columns);
            if (info.dType == DType.I8) {
                // Q8 block scales are per row segment: take the whole tensor and cut, as Jlama's own loader does.
                return tensor(name, info.dType, TensorShape.of(info.shape), whole(location), dctx, false).sparsify(start, length);
            }
            MemorySegment columnShard = read(location, ShardRead.of(location.info(), 1, start, length));
            return tensor(name, info.dType, TensorShape.sparseColumn(info.shape, Pair.of(start, length)), columnShard, dctx, false);
        } catch (IOException e) {
            throw new UncheckedIOException("loading " + name + " from " + source.checkpointId() + ": " + e.getMessage(), e);
        }
    }

    private MemorySegment whole(CheckpointSource.Location location) throws IOException {
        Optional<MemorySegment> inPlace = source.mappedAhead(location, ShardRead.whole(location.info()));
        if (inPlace.isPresent()) {
            return inPlace.get();
        }
        if (wholeTensors.isPresent()) {
            Optional<MemorySegment> prefetched = wholeTensors.get().take(location.info().name());
            if (prefetched.isPresent()) {
                return prefetched.get();
            }
        }
        return read(location, ShardRead.whole(location.info()));
    }

    /**
     * One shard's bytes: seen in place when the pools holding them are mapped here (read-only, valid
     * while the source is open, as Jlama's own tensors are views of its mapped files), else in memory
     * the tensor owns for as long as Jlama keeps it (freed by the collector with it).
     */
    private MemorySegment read(CheckpointSource.Location location, ShardRead read) throws IOException {
        if (read.bytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor " + location.info().name() + " needs " + read.bytes()
                    + " bytes on this shard; Jlama's buffer tensors hold at most 2 GiB");
        }
        Optional<MemorySegment> inPlace = source.mappedAhead(location, read);
        if (inPlace.isPresent()) {
            return inPlace.get();
        }
        MemorySegment memory = TensorMemory.allocate(read.bytes());
        source.read(location, read, memory);
        return memory;
    }

    private AbstractTensor tensor(String name, DType dtype, TensorShape shape, MemorySegment memory, DistributedContext dctx,
            boolean sparseRows) throws StoreException {
        // Seen in place or prefetched whole, a tensor is not checked against this before it is here.
        if (memory.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor " + name + " has " + memory.byteSize()
                    + " bytes; Jlama's buffer tensors hold at most 2 GiB");
        }
        ByteBuffer bytes = memory.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return switch (dtype) {
            case F32 -> new FloatBufferTensor(name, bytes.asFloatBuffer(), shape, true);
            case BF16 -> new BFloat16BufferTensor(name, bytes.asShortBuffer(), shape, true);
            case F16 -> modelDType == DType.F32 ? widen(name, bytes, shape) : new Float16BufferTensor(name, bytes.asShortBuffer(), shape, true);
            case I8 -> new Q8ByteBufferTensor(name, bytes, (FloatBufferTensor) load(name + ".qb", dctx, sparseRows, false), shape, true);
            default -> throw new IllegalArgumentException("tensor " + name + " has dtype " + dtype + ", which Jlama cannot compute with");
        };
    }

    /** F16 weights in an F32 model become F32, as Jlama's own loader does. */
    private static AbstractTensor widen(String name, ByteBuffer halfs, TensorShape shape) throws StoreException {
        int count = halfs.remaining() / 2;
        if ((long) count * 4 > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor " + name + " is F16 in a model Jlama computes in F32; widened it would take "
                    + (long) count * 4 + " bytes, and Jlama's buffer tensors hold at most 2 GiB");
        }
        ByteBuffer floats = TensorMemory.allocate((long) count * 4).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            floats.putFloat(i * 4, Float.float16ToFloat(halfs.getShort(i * 2)));
        }
        return new FloatBufferTensor(floats.asFloatBuffer(), shape, true);
    }

    /**
     * The engine has built its model: read-ahead stops and lets go of what it read, whose tensors are
     * the model's now (tensors asked for from now on are read one by one). Jlama keeps its loader for
     * the model's life without closing it, so whoever builds the model says so.
     */
    public void modelBuilt() {
        wholeTensors.ifPresent(TensorPrefetcher::close);
    }

    /** As {@link #modelBuilt}, and no tensor is read from now on; the checkpoint source belongs to whoever opened it. */
    @Override
    public void close() {
        closed = true;
        modelBuilt();
    }
}

package io.weightstore.weights.loader;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.client.ArrivedCrc;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.concurrent.DeadlineWait;
import io.weightstore.weights.CheckpointException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Tensors of a checkpoint (or of one rank's share of it) in file order, read in batches into one
 * reused off-heap buffer. The buffer has two 64-byte-aligned halves: while the consumer works
 * through the batch in one half, the next batch is read into the other, and the two reads in
 * flight overlap. Each batch is one scatter-gather read over the nodes: tensors of one file that
 * lie next to each other become one range, and a column shard is one strided read, all in flight
 * together. Each tensor, or the rank's shard of it, is checked against the CRC32C the import
 * recorded before its batch is handed out.
 *
 * <p>A tensor seen in place in a pool mapped on this host is not read at all: the stream hands out
 * the source's read-only view of it, which outlives the stream (it is valid until the source closes).
 *
 * <p>A tensor larger than a half gets a batch of its own, in memory of its own that the stream keeps
 * for the next such tensor (see {@link OversizeMemory}): it loads, at the cost of that much more
 * memory while the stream is open.
 */
public final class TensorStream implements AutoCloseable {
    static final long ALIGNMENT = 64;
    /** How long a close waits for the read in flight before it gives up on returning the buffers. */
    private static final Duration READER_STOP = Duration.ofSeconds(60);

    /**
     * One tensor: where it is, which part of it this rank takes, and what that part must hash to;
     * {@code inPlace} holds that part when it is seen in a pool mapped on this host (nothing to read,
     * and checked by the mapped file's block pass instead), else null; {@code strided}, for a column shard read from a column
     * layout, the item that reads it strided from its file instead, should the layout fail, else null.
     */
    record Item(CheckpointSource.Location location, Split split, ShardRead read, ShardCheck check, MemorySegment inPlace,
            Item strided) {
        Item(CheckpointSource.Location location, Split split, ShardRead read, ShardCheck check) {
            this(location, split, read, check, null, null);
        }

        Item inPlace(MemorySegment data) {
            return new Item(location, split, read, check, data, strided);
        }

        /** This item, a column shard read from a column layout, with {@code fromFile} the strided read of the same shard. */
        Item orStrided(Item fromFile) {
            return new Item(location, split, read, check, inPlace, fromFile);
        }

        long start() {
            return location.offsetOf(read);
        }

        /** Bytes this item takes in a batch: none when it is seen in place. */
        long bytesToRead() {
            return inPlace != null ? 0 : read.bytes();
        }
    }

    private record Batch(int index, List<Item> items, long bytes) {}

    /**
     * A batch's tensor data, and for a batch larger than a half, the memory of its own it lives in
     * and the view it was read through (closed when the stream moves past it).
     */
    private record Loaded(Batch batch, MemorySegment data, long[] offsets, OversizeMemory.Block own, Arena view) {}

    private final StoreClient store;
    private final List<Batch> batches;
    private final long plannedBytes;
    private final int tensorCount;
    private final int clientChecked;
    private final int seenInPlace;
    /** Column shards read from a column layout so far: a layout that fails is read no more, and its shards not counted. */
    private final AtomicInteger fromColumnLayouts = new AtomicInteger();
    private final StreamBuffers buffers;
    private final StreamBufferPool pool;
    /** This stream's views of the borrowed halves: closed with the stream, so a tensor kept past it fails loudly. */
    private final Arena views = Arena.ofShared();
    private final MemorySegment[] halves = new MemorySegment[2];
    private final OversizeMemory oversize = new OversizeMemory();
    /**
     * One thread per half: the next batch's reads queue for the store's connections while the last of this batch's
     * arrive, so no connection idles between batches (loopback, 2 GB, 16 loads of each in turns: 6.15 GB/s against
     * 5.44 with one thread, at 9 % less CPU per GB).
     */
    private final ExecutorService reader = Executors.newFixedThreadPool(2,
            Thread.ofPlatform().daemon().name("tensor-stream-reader-", 0).factory());
    private final List<Future<Loaded>> pending = new ArrayList<>();
    /**
     * Batches read into memory of their own and not released yet. Closing cancels the futures, and a
     * read that was running then completes a future whose result no one can get: its memory (a shared
     * arena, which the collector never frees) is found only here.
     */
    private final Set<Loaded> unreleased = ConcurrentHashMap.newKeySet();
    private Loaded current;
    private int position;
    /** The last tensor was handed out: the halves hold later batches than the first, which must not be read again. */
    private boolean ended;
    private boolean closed;
    /** A read from a column layout failed: its shards are read strided from their files from then on. */
    private volatile boolean layoutsFailed;
    private final Consumer<IOException> layoutsGivenUp;

    /** {@code layoutsGivenUp} is told, once, of the failure for which the stream gave its column layouts up. */
    TensorStream(StoreClient store, List<Item> items, long bufferBytes, StreamBufferPool pool, Consumer<IOException> layoutsGivenUp)
            throws StoreException {
        this.store = store;
        this.layoutsGivenUp = layoutsGivenUp;
        this.pool = pool;
        long half = Math.max(ALIGNMENT, bufferBytes / 2 / ALIGNMENT * ALIGNMENT);
        this.batches = plan(items, half);
        this.plannedBytes = items.stream().mapToLong(i -> i.read().bytes()).sum();
        this.tensorCount = items.size();
        this.clientChecked = (int) items.stream().filter(i -> i.inPlace() == null && i.check().byClient()).count();
        this.seenInPlace = (int) items.stream().filter(i -> i.inPlace() != null).count();
        long largestBatch = batches.stream().filter(b -> b.bytes() <= half).mapToLong(Batch::bytes).max().orElse(0);
        try {
            this.buffers = pool.borrow(Math.max(ALIGNMENT, Math.min(half, largestBatch)));
        } catch (StoreException | RuntimeException e) {
            reader.shutdown();
            views.close();
            throw e;
        }
        for (int i = 0; i < 2; i++) {
            halves[i] = buffers.half(i).reinterpret(views, null);
        }
        for (int i = 0; i < Math.min(2, batches.size()); i++) {
            submit(i);
        }
    }

    /** Greedy batches in file order: as many tensors as fit in a half, and an oversized tensor alone. */
    private static List<Batch> plan(List<Item> items, long half) {
        List<Batch> batches = new ArrayList<>();
        List<Item> current = new ArrayList<>();
        long bytes = 0;
        for (Item item : items) {
            long size = item.bytesToRead();
            if (!current.isEmpty() && bytes + size > half) {
                batches.add(new Batch(batches.size(), current, bytes));
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(item);
            bytes += size;
        }
        if (!current.isEmpty()) {
            batches.add(new Batch(batches.size(), current, bytes));
        }
        return batches;
    }

    public int tensorCount() {
        return tensorCount;
    }

    /** Tensors whose part this stream reads and checks against the CRC32C the import recorded. */
    public int clientChecked() {
        return clientChecked;
    }

    /** Tensors whose part this stream hands out in place, unread: their file's block pass checks them, if its source checks mapped files. */
    public int seenInPlace() {
        return seenInPlace;
    }

    /** Column shards this stream has read as one range of a file's column layout so far, rather than strided from the file. */
    public int fromColumnLayouts() {
        return fromColumnLayouts.get();
    }

    /** Bytes this stream will read from the store: the rank's share of every tensor. */
    public long plannedBytes() {
        return plannedBytes;
    }

    private void submit(int index) {
        Batch batch = batches.get(index);
        pending.add(reader.submit(() -> read(batch)));
    }

    private Loaded read(Batch batch) throws IOException {
        OversizeMemory.Block own = null;
        Arena view = null;
        MemorySegment data;
        if (batch.bytes() > buffers.halfBytes()) {
            own = oversize.take(batch.bytes());
            view = Arena.ofShared();
            data = own.memory().reinterpret(view, null).asSlice(0, batch.bytes());
        } else {
            data = halves[batch.index() % 2].asSlice(0, batch.bytes());
        }
        try {
            long[] offsets = readFallingBack(batch.items(), data);
            Loaded loaded = new Loaded(batch, data, offsets, own, view);
            if (own != null) {
                unreleased.add(loaded);
            }
            return loaded;
        } catch (IOException | RuntimeException e) {
            release(new Loaded(batch, data, new long[0], own, view));
            throw e;
        }
    }

    /**
     * Reads {@code items} into {@code data}, and returns where each lies in it. When a batch with column layouts' shards
     * fails as a layout may (no copy serves it, or its bytes are not what the import recorded), the batch is read again
     * with those shards read strided from their files, which hold the same bytes: if that read succeeds, the layouts were
     * at fault, and are given up for the rest of the stream (and the source is told, with a warning); if it fails too,
     * the files' own failure is thrown and nothing is given up.
     */
    private long[] readFallingBack(List<Item> items, MemorySegment data) throws IOException {
        int laidOut = (int) items.stream().filter(i -> i.strided() != null).count();
        if (laidOut > 0 && layoutsFailed) {
            return readInto(strided(items), data);
        }
        try {
            long[] offsets = readInto(items, data);
            fromColumnLayouts.addAndGet(laidOut);
            return offsets;
        } catch (IOException e) {
            if (laidOut == 0 || !(e instanceof CheckpointException || e instanceof StoreException store && store.noCopyServed())) {
                throw e;
            }
            long[] offsets;
            try {
                offsets = readInto(strided(items), data);
            } catch (IOException | RuntimeException again) {
                again.addSuppressed(e);
                throw again;
            }
            if (!layoutsFailed) {
                layoutsFailed = true;
                layoutsGivenUp.accept(e);
            }
            return offsets;
        }
    }

    /** {@code items}, each column layout's shard replaced by the strided read of its file. */
    private static List<Item> strided(List<Item> items) {
        return items.stream().map(i -> i.strided() != null ? i.strided() : i).toList();
    }

    private long[] readInto(List<Item> items, MemorySegment data) throws IOException {
        long[] offsets = new long[items.size()];
        long at = 0;
        for (int i = 0; i < items.size(); i++) {
            offsets[i] = at;
            at += items.get(i).bytesToRead();
        }
        // The whole batch is one scatter-gather read: adjacent tensors of a file merge into one range,
        // each file's ranges are one read, and every column shard is one strided read.
        List<Read> reads = new ArrayList<>();
        boolean[] continuesRead = new boolean[items.size()];
        ArrivedCrc[] arrived = new ArrivedCrc[items.size()];
        int i = 0;
        while (i < items.size()) {
            Item item = items.get(i);
            ShardRead r = item.read();
            if (item.inPlace() != null) {
                i++;
                continue;
            }
            if (!r.contiguous()) {
                // Hashed as they land only when there is a recorded CRC to compare with.
                arrived[i] = item.check().byClient() ? new ArrivedCrc() : null;
                reads.add(new Read.Strided(item.location().object(), new Stride(item.start(), r.blockLength(), r.stride(),
                        r.count()), data.asSlice(offsets[i], r.bytes()), Optional.ofNullable(arrived[i])));
                i++;
                continue;
            }
            int end = i + 1;
            while (end < items.size() && items.get(end).read().contiguous() && items.get(end).inPlace() == null
                    && items.get(end).location().object() == item.location().object()) {
                end++;
            }
            reads.add(contiguous(items, i, end, data, offsets[i], continuesRead));
            i = end;
        }
        if (!reads.isEmpty()) {
            store.read(reads);
        }
        verifyRead(items, data, offsets, continuesRead, arrived);
        return offsets;
    }

    /**
     * Checks what was read, before the batch is handed out, so no tensor a node got wrong reaches the
     * consumer. Tensors seen in place were not read: their file's block pass checks them. Column
     * shards were hashed as they arrived.
     */
    private static void verifyRead(List<Item> items, MemorySegment data, long[] offsets, boolean[] continuesRead,
            ArrivedCrc[] arrived) throws IOException {
        List<BatchCheck.Part> parts = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Item item = items.get(i);
            if (item.inPlace() != null) {
                continue;
            }
            ShardRead read = item.read();
            if (read.contiguous()) {
                parts.add(new BatchCheck.Part(item.check(), offsets[i], read.bytes(), item.location().object().object(), item.start(),
                        continuesRead[i]));
            } else if (arrived[i] != null) {
                item.check().verifyCrc(arrived[i].crc32c(read.bytes()));
            }
        }
        BatchCheck.verify(parts, data);
    }

    /**
     * One read of items {@code [from, to)}, which lie one after another in {@code data} from
     * {@code dstOffset}: items adjacent in their object merge into one range, and are marked in
     * {@code continuesRead}.
     */
    private static Read contiguous(List<Item> items, int from, int to, MemorySegment data, long dstOffset, boolean[] continuesRead) {
        List<Range> ranges = new ArrayList<>();
        long bytes = 0;
        for (int i = from; i < to; i++) {
            Item item = items.get(i);
            long start = item.start();
            long length = item.read().bytes();
            Range last = ranges.isEmpty() ? null : ranges.getLast();
            if (last != null && last.end() == start) {
                ranges.set(ranges.size() - 1, new Range(last.offset(), last.length() + length));
                continuesRead[i] = true;
            } else if (length > 0) {
                ranges.add(new Range(start, length));
            }
            bytes += length;
        }
        return new Read.Ranges(items.get(from).location().object(), ranges, data.asSlice(dstOffset, bytes));
    }

    /** The next tensor, or null after the last. The previous tensor's data may be overwritten from now on. */
    public Tensor next() throws IOException {
        if (closed) {
            throw new IllegalStateException("tensor stream is closed");
        }
        if (ended) {
            return null;
        }
        while (current == null || position == current.batch().items().size()) {
            int nextIndex = current == null ? 0 : current.batch().index() + 1;
            if (current != null) {
                release(current);
                if (nextIndex + 1 < batches.size()) {
                    submit(nextIndex + 1);
                }
            }
            if (nextIndex >= batches.size()) {
                current = null;
                ended = true;
                return null;
            }
            current = Futures.await(pending.get(nextIndex));
            position = 0;
        }
        Item item = current.batch().items().get(position);
        MemorySegment data = item.inPlace() != null ? item.inPlace()
                : current.data().asSlice(current.offsets()[position], item.read().bytes());
        position++;
        var info = item.location().info();
        return new Tensor(info.name(), info.dtype(), item.read().shape(), info.shape(), item.split(), item.location().file(), data);
    }


    private void release(Loaded loaded) {
        if (loaded.own() != null && loaded.view().scope().isAlive()) {
            unreleased.remove(loaded);
            loaded.view().close();
            oversize.giveBack(loaded.own());
        }
    }

    /** Stops reading ahead, waits for a read in flight to finish, then hands the buffers back to their pool. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pending.forEach(f -> f.cancel(false));
        reader.shutdown();
        // Waited for through an interrupt (a cancelled load closes with one pending): the read in flight writes into the
        // buffers given back below, and a close that gave up early would leak them and leave kept tensors readable.
        if (!DeadlineWait.termination(reader, System.nanoTime() + READER_STOP.toNanos())) {
            throw new IllegalStateException("tensor stream reader did not stop within " + READER_STOP.toSeconds()
                    + " s; buffers not returned");
        }
        for (Future<Loaded> future : pending) {
            if (future.isDone() && !future.isCancelled()) {
                try {
                    release(future.get());
                } catch (InterruptedException | ExecutionException ignored) {
                    // A batch that failed or never ran holds no memory of its own.
                }
            }
        }
        for (Loaded lost : List.copyOf(unreleased)) {
            release(lost);
        }
        views.close();
        oversize.close();
        pool.giveBack(buffers);
    }
}

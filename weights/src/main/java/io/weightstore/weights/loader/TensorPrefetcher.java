package io.weightstore.weights.loader;

import io.weightstore.store.api.Range;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.concurrent.DeadlineWait;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Whole tensors for engines that ask for them one by one and keep them (Jlama does): the
 * checkpoint is read in file order, a batch of tensors per scatter-gather read, straight into
 * memory each tensor owns from then on, a few batches ahead of the furthest tensor asked for, each
 * tensor checked against the CRC32C the import recorded before anyone can take it.
 * {@link #take} waits only for its own batch, so an engine asking from several threads in any
 * order gets the throughput of one sequential stream.
 *
 * <p>Each batch is one allocation that lives as long as any of its tensors is reachable (an
 * automatic arena): the engine owns the memory and the collector frees it with the engine's tensors.
 * It is {@link TensorMemory}, in huge pages and outside the JVM's direct-memory limit from 2 MiB up, so
 * that a model larger than the heap limit loads, and fresh memory is not cleared twice.
 * The prefetcher lets go of a batch once every tensor in it was taken, and of all of them when
 * closed, so that what the engine drops (a tensor it converts, one it never asks for) is freed even
 * while the engine keeps the prefetcher.
 */
public final class TensorPrefetcher implements AutoCloseable {
    static final long ALIGNMENT = 64;
    /** Batches read at once: the next one's reads queue for the store's connections while the last of this one's arrive. */
    private static final int READERS = 2;
    /** How long a close waits for reads in flight to end, each bounded by the store's deadlines anyway. */
    private static final Duration READER_STOP = Duration.ofSeconds(10);

    /** A tensor's place in its batch's memory. */
    private record Slot(int batch, long offset, long length) {}

    private record Batch(List<CheckpointSource.Location> tensors, long bytes) {}

    private final StoreClient store;
    private final List<Batch> batches = new ArrayList<>();
    private final Map<String, Slot> slots = new HashMap<>();
    /** Each batch's read, once queued; null once the prefetcher let go of it. */
    private final List<Future<MemorySegment>> reads = new ArrayList<>();
    /** Per batch, its tensors not taken yet. */
    private final int[] untaken;
    private final Set<String> taken = new HashSet<>();
    private final int ahead;
    private final ExecutorService reader;
    private boolean closed;

    TensorPrefetcher(StoreClient store, List<CheckpointSource.Location> inFileOrder, long batchBytes, int ahead) {
        if (batchBytes < ALIGNMENT || ahead < 1) {
            throw new IllegalArgumentException("prefetch needs batchBytes >= 64 and ahead >= 1: batchBytes=" + batchBytes
                    + " ahead=" + ahead);
        }
        this.store = store;
        this.ahead = ahead;
        this.reader = Executors.newFixedThreadPool(READERS, Thread.ofPlatform().daemon().name("tensor-prefetch-", 0).factory());
        List<CheckpointSource.Location> current = new ArrayList<>();
        long offset = 0;
        for (CheckpointSource.Location tensor : inFileOrder) {
            long length = tensor.info().byteSize();
            if (!current.isEmpty() && offset + length > batchBytes) {
                batches.add(new Batch(current, offset));
                current = new ArrayList<>();
                offset = 0;
            }
            current.add(tensor);
            slots.put(tensor.info().name(), new Slot(batches.size(), offset, length));
            offset = aligned(offset + length);
        }
        if (!current.isEmpty()) {
            batches.add(new Batch(current, offset));
        }
        untaken = batches.stream().mapToInt(batch -> batch.tensors().size()).toArray();
        schedule(Math.min(ahead, batches.size()) - 1);
    }

    private static long aligned(long offset) {
        return (offset + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /**
     * The whole tensor, once its batch is read; empty when this prefetcher does not hold it, or no
     * longer (taken before from a batch every tensor of which was taken, or asked after close).
     */
    public Optional<MemorySegment> take(String name) throws IOException {
        Slot slot = slots.get(name);
        if (slot == null) {
            return Optional.empty();
        }
        Future<MemorySegment> batch;
        synchronized (this) {
            if (closed) {
                return Optional.empty();
            }
            schedule(Math.min(batches.size() - 1, slot.batch() + ahead - 1));
            batch = reads.get(slot.batch());
            if (batch == null) {
                return Optional.empty();
            }
            if (taken.add(name) && --untaken[slot.batch()] == 0) {
                reads.set(slot.batch(), null);
            }
        }
        return Optional.of(Futures.awaitShared(batch).asSlice(slot.offset(), slot.length()));
    }

    /** Queues every batch up to {@code last} that is not queued yet, in order. */
    private synchronized void schedule(int last) {
        while (reads.size() <= last) {
            Batch batch = batches.get(reads.size());
            reads.add(reader.submit(() -> read(batch)));
        }
    }

    /** One scatter-gather read: adjacent tensors of one file become one range. */
    private MemorySegment read(Batch batch) throws IOException {
        MemorySegment memory = TensorMemory.allocate(batch.bytes());
        List<Read> reads = new ArrayList<>();
        ObjectReader object = null;
        List<Range> ranges = new ArrayList<>();
        long runStart = 0;
        long runEnd = 0;
        boolean[] continuesRead = new boolean[batch.tensors().size()];
        int index = 0;
        for (CheckpointSource.Location tensor : batch.tensors()) {
            Slot slot = slots.get(tensor.info().name());
            if (slot.length() == 0) {
                // Nothing to read: an empty tensor neither starts a run nor ends one, and the check passes over it.
                continuesRead[index++] = false;
                continue;
            }
            long start = tensor.dataStart() + tensor.info().begin();
            boolean continues = tensor.object() == object && !ranges.isEmpty() && ranges.getLast().end() == start
                    && runEnd == slot.offset();
            if (!continues && object != null) {
                reads.add(new Read.Ranges(object, ranges, memory.asSlice(runStart, runEnd - runStart)));
                ranges = new ArrayList<>();
            }
            if (!continues) {
                object = tensor.object();
                runStart = slot.offset();
                ranges.add(new Range(start, slot.length()));
            } else {
                Range last = ranges.removeLast();
                ranges.add(new Range(last.offset(), last.length() + slot.length()));
            }
            runEnd = slot.offset() + slot.length();
            continuesRead[index++] = continues;
        }
        if (object != null) {
            reads.add(new Read.Ranges(object, ranges, memory.asSlice(runStart, runEnd - runStart)));
        }
        store.read(reads);
        List<Slot> placed = batch.tensors().stream().map(t -> slots.get(t.info().name())).toList();
        List<BatchCheck.Part> parts = new ArrayList<>();
        for (int i = 0; i < batch.tensors().size(); i++) {
            CheckpointSource.Location tensor = batch.tensors().get(i);
            parts.add(new BatchCheck.Part(ShardCheck.of(tensor, ShardRead.whole(tensor.info())), placed.get(i).offset(),
                    placed.get(i).length(), tensor.object().object(), tensor.dataStart() + tensor.info().begin(), continuesRead[i]));
        }
        BatchCheck.verify(parts, memory);
        return memory;
    }

    /**
     * Stops reading ahead and lets go of every batch; tensors already taken stay valid, as their memory
     * belongs to whoever holds them, and those asked for from now on are not here. Then, if it read any
     * batch, asks for a collection: batch memory is unmapped only once a collection finds it unreachable,
     * and nothing else would ask soon, as it counts against no limit of the JVM's, so what the engine
     * dropped while it loaded (tensors it converted) would stay resident beside what it made of them.
     * A prefetcher that read nothing (every file seen in place on this host) asks for none: a full
     * collection stops a Jlama load for 70 ms on a 2-core VM, for memory it never had.
     */
    @Override
    public void close() {
        boolean readAny;
        synchronized (this) {
            closed = true;
            readAny = !reads.isEmpty();
            for (int i = 0; i < reads.size(); i++) {
                Future<MemorySegment> read = reads.set(i, null);
                if (read != null) {
                    read.cancel(false);
                }
            }
            reader.shutdown();
        }
        // A reader thread's last task holds its batch until the thread moves on: the collection would miss it.
        DeadlineWait.termination(reader, System.nanoTime() + READER_STOP.toNanos());
        if (readAny) {
            System.gc();
        }
    }
}

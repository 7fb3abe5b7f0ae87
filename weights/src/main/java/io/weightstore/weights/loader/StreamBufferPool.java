package io.weightstore.weights.loader;

import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the buffers of closed {@link TensorStream}s for the next ones, so their memory is touched
 * once rather than once per stream: on these VMs a first touch costs about 3 us per 4 KiB page,
 * 0.4 s for the default 512 MiB, which is most of a small checkpoint's load. A
 * {@link CheckpointSource} has one of its own unless {@link LoadOptions#withBufferPool} gives it
 * one to share with other sources (a process that loads or reloads several checkpoints); whoever
 * creates a pool closes it.
 *
 * <p>Streams open at the same time each get their own buffers (the ranks of a tensor-parallel load
 * in one process, say), and each set comes back for the next round: the pool keeps as many sets as
 * were lent at once, no more, since a borrow that finds only sets too small for it frees one before
 * it allocates. Memory is allocated and freed outside the pool's lock, so a stream whose buffers
 * are kept never waits behind another's first touch of 512 MiB.
 *
 * <p>Every kept set but one is the kernel's to take back when it runs short of memory
 * ({@link StreamBuffers#markReclaimable}): a source that four ranks once streamed from at once, then
 * kept open for its mapped tensors, would otherwise hold 2 GiB it may never use again. While memory
 * is plenty the next streams find those pages where they were, at some cost: a load into a set
 * given back so took 10 % longer (2 GB over loopback, 241 ms against 219, medians of eight in turns),
 * which is why one set, the one loads one after another take, is kept as it is.
 */
public final class StreamBufferPool implements AutoCloseable {
    private final List<StreamBuffers> spares = new ArrayList<>();
    private boolean closed;

    StreamBuffers borrow(long halfBytes) throws StoreException {
        StreamBuffers tooSmall = null;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("stream buffer pool is closed");
            }
            // The smallest set that fits, so that ranks asking for different sizes at once each find theirs again.
            int fitting = -1;
            for (int i = 0; i < spares.size(); i++) {
                long size = spares.get(i).halfBytes();
                if (size >= halfBytes && (fitting < 0 || size < spares.get(fitting).halfBytes())) {
                    fitting = i;
                }
            }
            if (fitting >= 0) {
                StreamBuffers lent = spares.remove(fitting);
                // The stream writes its pages again: whatever advice they had, they are in use now.
                lent.inUse();
                return lent;
            }
            if (!spares.isEmpty()) {
                tooSmall = spares.removeLast();
            }
        }
        if (tooSmall != null) {
            tooSmall.close();
        }
        return new StreamBuffers(halfBytes);
    }

    void giveBack(StreamBuffers buffers) {
        synchronized (this) {
            if (!closed && spares.stream().allMatch(StreamBuffers::reclaimable)) {
                spares.add(buffers);
                return;
            }
        }
        // Before another stream can borrow it: advised while in use, what that stream wrote could be lost.
        buffers.markReclaimable();
        synchronized (this) {
            if (!closed) {
                spares.add(buffers);
                return;
            }
        }
        buffers.close();
    }

    /** Frees the kept buffers; buffers of streams still open are freed when those streams close. */
    @Override
    public void close() {
        List<StreamBuffers> kept;
        synchronized (this) {
            closed = true;
            kept = List.copyOf(spares);
            spares.clear();
        }
        kept.forEach(StreamBuffers::close);
    }
}

package io.weightstore.gateway.transfer;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.S3Error;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the object transfers in progress and lends each a pair of chunk buffers, reused from one
 * transfer to the next: memory for transfers never exceeds {@code maxConcurrent × 2 × chunkBytes},
 * and buffers are touched once, not per request. Transfers beyond the bound wait their turn, first
 * come first served, for at most {@code maxWait}; beyond {@code maxWaiting} waiting, or after that
 * wait, a request is answered 503 {@code SlowDown}, which S3 clients retry after a back-off. The
 * wait is bounded so that a request whose client has given up does not take a slot long after.
 *
 * <p>The buffers are off-heap and page-aligned, in an arena the slots own: the nodes' bytes are read
 * into them and sent from them, never copied on the way. Closing the slots frees them, once every
 * transfer has given its slot back.
 */
public final class TransferSlots implements AutoCloseable {
    private static final long ALIGNMENT = 4096;

    private final Arena arena = Arena.ofShared();
    private final Semaphore permits;
    private final int maxConcurrent;
    private final int maxWaiting;
    private final int chunkBytes;
    private final Duration maxWait;
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentLinkedDeque<MemorySegment[]> idle = new ConcurrentLinkedDeque<>();

    public TransferSlots(int maxConcurrent, int maxWaiting, int chunkBytes, Duration maxWait) {
        this.permits = new Semaphore(maxConcurrent, true);
        this.maxConcurrent = maxConcurrent;
        this.maxWaiting = maxWaiting;
        this.chunkBytes = chunkBytes;
        this.maxWait = maxWait;
    }

    /** One transfer's right to run, and its buffers; closing it gives both back. */
    public final class Slot implements AutoCloseable {
        private final MemorySegment[] buffers;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Slot(MemorySegment[] buffers) {
            this.buffers = buffers;
        }

        public int chunkBytes() {
            return chunkBytes;
        }

        /** Buffer 0 or 1, allocated on first use: a slot that only ever serves small ranges never holds two. */
        public MemorySegment buffer(int index) {
            if (buffers[index] == null) {
                buffers[index] = arena.allocate(chunkBytes, ALIGNMENT);
            }
            return buffers[index];
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                idle.push(buffers);
                permits.release();
            }
        }
    }

    /** Transfers holding a slot now. */
    public int running() {
        return maxConcurrent - permits.availablePermits();
    }

    /** Transfers waiting for a slot now. */
    public int waiting() {
        return waiting.get();
    }

    /**
     * Waits for a slot.
     *
     * @throws S3Error SlowDown when {@code maxWaiting} requests are waiting already, or none came free within {@code maxWait}
     */
    public Slot acquire() throws InterruptedException {
        Optional<Slot> free = tryAcquire();
        if (free.isPresent()) {
            return free.get();
        }
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            throw new S3Error(ErrorCode.SLOW_DOWN, "every transfer slot is busy and " + maxWaiting
                    + " requests are waiting for one; retry after a back-off");
        }
        try {
            if (!permits.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new S3Error(ErrorCode.SLOW_DOWN, "no transfer slot came free within " + maxWait.toMillis()
                        + " ms; retry after a back-off");
            }
        } finally {
            waiting.decrementAndGet();
        }
        return lend();
    }

    /** A slot if one is free now, with none waiting for it; else empty, without waiting. */
    public Optional<Slot> tryAcquire() throws InterruptedException {
        // tryAcquire with a timeout, unlike without, keeps the semaphore's first-come-first-served order.
        return permits.tryAcquire(0, TimeUnit.SECONDS) ? Optional.of(lend()) : Optional.empty();
    }

    private Slot lend() {
        MemorySegment[] buffers = idle.poll();
        return new Slot(buffers != null ? buffers : new MemorySegment[2]);
    }

    /** Frees every buffer; the transfers must have ended, as they have once the gateway's server is stopped. */
    @Override
    public void close() {
        arena.close();
    }
}

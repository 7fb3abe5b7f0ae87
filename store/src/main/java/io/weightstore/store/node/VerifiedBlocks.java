package io.weightstore.store.node;

import io.weightstore.store.wire.BlockCheck;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * The checksum blocks of one pool that were found intact recently and not written since, so that a
 * block several readers each read a part of is checked once, not once per reader: under tensor
 * parallelism every rank reads a few columns of every block of a tensor, and the node used to hash
 * each whole block for each rank.
 *
 * <p>A block is trusted only for the exact offset, length and CRC32C it was checked against, and
 * only for {@code trust} after its check: bytes that change behind the node's back (rot in the pool
 * file, a same-host client writing through its own mapping, which the node never sees) are checked
 * again once that time is up, found sooner by the scrubber (which always hashes, and
 * {@link #forget}s what it finds bad), and, in the meantime, by the client, which checks whole
 * blocks itself and the loader every tensor or shard it has a CRC for. Writes the node does see (a
 * WRITE, a copy) are {@link #writing}: they forget every block they touch, before and after the bytes
 * land, and no block they touch is remembered while they last.
 *
 * <p>Memory is bounded by the pool's size: one slot per {@link #SLOT_BYTES} of pool, holding the
 * last block found intact that starts in it. Blocks smaller than a slot share it and push each other
 * out, which costs a check, never a wrong answer.
 */
final class VerifiedBlocks {
    /** A slot per 64 KiB of pool: 16 per default 1 MiB block, so slices (4 KiB aligned) rarely share one. */
    static final long SLOT_BYTES = 64 << 10;

    /** A block found intact at {@code checkedAt} (on the memo's clock). */
    private record Verified(long offset, int length, int crc32c, long checkedAt) {
        boolean overlaps(long from, long to) {
            return offset < to && from < offset + length;
        }
    }

    private final AtomicReferenceArray<Verified> slots;
    /** Counts writes started; a check that saw it move may have hashed bytes half written, and is not kept. */
    private final AtomicLong writes = new AtomicLong();
    /** The writes whose bytes may be landing now: a check of a block one touches hashed bytes it may yet change. */
    private final Set<Writing> landing = ConcurrentHashMap.newKeySet();
    /** The longest block remembered, so that {@link #forget} knows how far back a block touching its range may start. */
    private final AtomicInteger longest = new AtomicInteger();
    private final long trustNanos;
    private final LongSupplier nanoClock;

    /**
     * A memo for a pool of {@code capacity} bytes, trusting a check for {@code trust} on
     * {@code nanoClock} (nanoseconds, as {@link System#nanoTime}); a zero trust remembers nothing.
     */
    VerifiedBlocks(long capacity, Duration trust, LongSupplier nanoClock) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0: capacity=" + capacity);
        }
        if (trust.isNegative()) {
            throw new IllegalArgumentException("trust must be >= 0: trust=" + trust);
        }
        long slotCount = Math.ceilDiv(capacity, SLOT_BYTES);
        if (slotCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("capacity too large for one slot per " + SLOT_BYTES + " bytes: capacity=" + capacity);
        }
        this.slots = new AtomicReferenceArray<>((int) slotCount);
        this.trustNanos = trust.toNanos();
        this.nanoClock = nanoClock;
    }

    /** Whether {@code check} was found intact within the trust time, and nothing the node saw wrote to it since. */
    boolean trusts(BlockCheck check) {
        int slot = slot(check.offset());
        Verified known = slot < slots.length() ? slots.get(slot) : null;
        return known != null && known.offset() == check.offset() && known.length() == check.length()
                && known.crc32c() == check.crc32c() && nanoClock.getAsLong() - known.checkedAt() < trustNanos;
    }

    /** Where writes stand now: take it before hashing a block, and give it to {@link #remember}. */
    long writesStarted() {
        return writes.get();
    }

    /**
     * Remembers that {@code check} matched the pool, hashed after {@link #writesStarted()} returned
     * {@code writesBefore}; not if a write started since, as it may have changed bytes under the hash.
     */
    void remember(BlockCheck check, long writesBefore) {
        int slot = slot(check.offset());
        if (trustNanos == 0 || slot >= slots.length() || writes.get() != writesBefore || beingWritten(check)) {
            return;
        }
        Verified entry = new Verified(check.offset(), check.length(), check.crc32c(), nanoClock.getAsLong());
        longest.accumulateAndGet(check.length(), Math::max);
        slots.set(slot, entry);
        // A write that started between the test above and the set may already have swept this slot: take the entry back.
        if (writes.get() != writesBefore) {
            slots.compareAndSet(slot, entry, null);
        }
    }

    /**
     * A write of {@code length} bytes at {@code offset} begins: every block it touches is forgotten now, none is
     * remembered until it is closed, and they are forgotten again then. A check made while its bytes land may hash
     * the block before they reach it, which a count of writes started cannot tell, as this one started before it.
     */
    Writing writing(long offset, long length) {
        Writing writing = new Writing(offset, offset + length);
        landing.add(writing);
        forget(offset, length);
        return writing;
    }

    /** A write the node sees, from before its bytes land until after. */
    final class Writing implements AutoCloseable {
        private final long from;
        private final long to;

        private Writing(long from, long to) {
            this.from = from;
            this.to = to;
        }

        /** Its bytes landed, or stopped landing. Forgets first: a check that found it landing, or that began before this, is not kept. */
        @Override
        public void close() {
            forget(from, to - from);
            landing.remove(this);
        }
    }

    /** Whether a write the node sees may be landing on {@code check}'s block now. */
    boolean beingWritten(BlockCheck check) {
        for (Writing writing : landing) {
            if (check.offset() < writing.to && writing.from < check.end()) {
                return true;
            }
        }
        return false;
    }

    /** Forgets every block touching {@code length} bytes at {@code offset}: what the scrubber found bad. */
    void forget(long offset, long length) {
        writes.incrementAndGet();
        long end = offset + length;
        int first = slot(Math.max(0, offset - longest.get()));
        int last = slot(Math.max(offset, end - 1));
        for (int slot = first; slot <= last && slot < slots.length(); slot++) {
            Verified known = slots.get(slot);
            if (known != null && known.overlaps(offset, end)) {
                slots.compareAndSet(slot, known, null);
            }
        }
    }

    private static int slot(long offset) {
        return (int) (offset / SLOT_BYTES);
    }
}

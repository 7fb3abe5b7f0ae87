package io.weightstore.store.master;

import io.weightstore.store.checksum.Checksums;
import java.time.Duration;

/**
 * Tunables of the master.
 *
 * @param highWatermark fraction of capacity above which unpinned objects are evicted (LRU)
 * @param lowWatermark fraction eviction brings usage back down to
 */
public record MasterConfig(long sliceSize, int checksumBlockSize, Duration heartbeatInterval, Duration nodeDeadline,
        Duration leaseDuration, Duration putTimeout, double highWatermark, double lowWatermark) {

    public static final long DEFAULT_SLICE_SIZE = 64L << 20;

    public MasterConfig {
        if (sliceSize <= 0 || sliceSize % SegmentAllocator.ALIGNMENT != 0) {
            throw new IllegalArgumentException("slice size must be a positive multiple of 4096: sliceSize=" + sliceSize);
        }
        if (checksumBlockSize <= 0 || sliceSize % checksumBlockSize != 0) {
            throw new IllegalArgumentException("checksum block must divide the slice size: checksumBlockSize="
                    + checksumBlockSize + " sliceSize=" + sliceSize);
        }
        if (!(lowWatermark > 0 && lowWatermark <= highWatermark && highWatermark <= 1)) {
            throw new IllegalArgumentException("watermarks must satisfy 0 < low <= high <= 1: low=" + lowWatermark
                    + " high=" + highWatermark);
        }
    }

    public static MasterConfig defaults() {
        return new MasterConfig(DEFAULT_SLICE_SIZE, Checksums.DEFAULT_BLOCK_SIZE, Duration.ofSeconds(1),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(10), 0.95, 0.85);
    }

    public MasterConfig withSliceSize(long size) {
        return new MasterConfig(size, (int) Math.min(checksumBlockSize, size), heartbeatInterval, nodeDeadline,
                leaseDuration, putTimeout, highWatermark, lowWatermark);
    }
}

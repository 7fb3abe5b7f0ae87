package io.weightstore.store.master;

import io.weightstore.store.checksum.Checksums;
import java.time.Duration;

/**
 * Tunables of the master.
 *
 * @param highWatermark fraction of capacity a new object may fill up to; above it, unpinned objects
 *     are evicted (least recently read first), only as many as make the new one fit. Copies the master
 *     adds beyond an object's replica count (auto, local) never fill a node past it.
 * @param replication how lost, bad and wanted copies are made
 */
public record MasterConfig(long sliceSize, int checksumBlockSize, Duration heartbeatInterval, Duration nodeDeadline,
        Duration leaseDuration, Duration putTimeout, double highWatermark, ReplicationConfig replication) {

    public static final long DEFAULT_SLICE_SIZE = 64L << 20;

    public MasterConfig {
        if (sliceSize <= 0 || sliceSize % SegmentAllocator.ALIGNMENT != 0) {
            throw new IllegalArgumentException("slice size must be a positive multiple of 4096: sliceSize=" + sliceSize);
        }
        if (checksumBlockSize <= 0 || sliceSize % checksumBlockSize != 0) {
            throw new IllegalArgumentException("checksum block must divide the slice size: checksumBlockSize="
                    + checksumBlockSize + " sliceSize=" + sliceSize);
        }
        if (!(highWatermark > 0 && highWatermark <= 1)) {
            throw new IllegalArgumentException("the high watermark must be in (0, 1]: highWatermark=" + highWatermark);
        }
    }

    /** With the default replication settings. */
    public MasterConfig(long sliceSize, int checksumBlockSize, Duration heartbeatInterval, Duration nodeDeadline, Duration leaseDuration,
            Duration putTimeout, double highWatermark) {
        this(sliceSize, checksumBlockSize, heartbeatInterval, nodeDeadline, leaseDuration, putTimeout, highWatermark,
                ReplicationConfig.defaults());
    }

    public static MasterConfig defaults() {
        return new MasterConfig(DEFAULT_SLICE_SIZE, Checksums.DEFAULT_BLOCK_SIZE, Duration.ofSeconds(1),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(10), 0.95);
    }

    public MasterConfig withSliceSize(long size) {
        return new MasterConfig(size, (int) Math.min(checksumBlockSize, size), heartbeatInterval, nodeDeadline,
                leaseDuration, putTimeout, highWatermark, replication);
    }

    public MasterConfig withReplication(ReplicationConfig value) {
        return new MasterConfig(sliceSize, checksumBlockSize, heartbeatInterval, nodeDeadline, leaseDuration, putTimeout,
                highWatermark, value);
    }
}

package io.weightstore.store.master;

import java.time.Duration;

/**
 * How the master keeps replicas: when it makes a lost copy again, how fast and how many at once
 * nodes copy, and how it sizes auto replica counts.
 *
 * @param repairAfter how long a node may stay down before its copies are made again on other nodes
 *     (a node that restarts within it keeps its copies, and nothing is copied)
 * @param copyBytesPerSecond each node's budget for copying from other nodes, so loads keep their bandwidth
 * @param copiesPerNode copies a node makes, and copies read from a node, at once
 * @param readersPerReplica with auto replicas, readers (read leases) an object may have per copy
 *     before the master adds one
 * @param coolDown with auto replicas, how long copies added for readers stay once the readers are gone
 * @param stallTimeout how long a node's copy may report no progress before the master gives it up
 */
public record ReplicationConfig(Duration repairAfter, long copyBytesPerSecond, int copiesPerNode, int readersPerReplica,
        Duration coolDown, Duration stallTimeout) {
    public ReplicationConfig {
        if (repairAfter.isNegative() || coolDown.isNegative() || stallTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("replication durations must not be negative: repairAfter=" + repairAfter + " coolDown="
                    + coolDown + " stallTimeout=" + stallTimeout);
        }
        if (copyBytesPerSecond < 1 || copiesPerNode < 1 || readersPerReplica < 1) {
            throw new IllegalArgumentException("copyBytesPerSecond, copiesPerNode and readersPerReplica must be >= 1: copyBytesPerSecond="
                    + copyBytesPerSecond + " copiesPerNode=" + copiesPerNode + " readersPerReplica=" + readersPerReplica);
        }
    }

    /** Ten minutes' grace for a node that is down, 64 MB/s of copying per node, two copies at once. */
    public static ReplicationConfig defaults() {
        return new ReplicationConfig(Duration.ofMinutes(10), 64_000_000, 2, 2, Duration.ofMinutes(5), Duration.ofSeconds(60));
    }

    public ReplicationConfig withRepairAfter(Duration value) {
        return new ReplicationConfig(value, copyBytesPerSecond, copiesPerNode, readersPerReplica, coolDown, stallTimeout);
    }

    public ReplicationConfig withCopyBytesPerSecond(long value) {
        return new ReplicationConfig(repairAfter, value, copiesPerNode, readersPerReplica, coolDown, stallTimeout);
    }

    public ReplicationConfig withReadersPerReplica(int value) {
        return new ReplicationConfig(repairAfter, copyBytesPerSecond, copiesPerNode, value, coolDown, stallTimeout);
    }

    public ReplicationConfig withCoolDown(Duration value) {
        return new ReplicationConfig(repairAfter, copyBytesPerSecond, copiesPerNode, readersPerReplica, value, stallTimeout);
    }
}

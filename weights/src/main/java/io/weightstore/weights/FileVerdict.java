package io.weightstore.weights;

import io.weightstore.store.client.RepairOutcome;
import io.weightstore.store.client.ReplicaVerdict;
import java.util.List;

/**
 * The state of one stored file against its manifest entry, with the copies a check found bad and
 * the repairs made to them.
 *
 * @param badCopies copies found CORRUPT or MISSING (before any repair, when repairs were made)
 * @param repairs what a repair did, copy by copy; empty when none was asked for or needed
 */
public record FileVerdict(String path, Status status, String detail, List<ReplicaVerdict> badCopies, List<RepairOutcome> repairs) {
    /** From best to worst; a checkpoint is as bad as its worst file. */
    public enum Status {
        /** Matches the manifest, and every copy of every slice is good. */
        OK,
        /** The data is whole (every slice has a good copy, and reads back to the manifest's SHA-256), but a copy is bad or missing. */
        DEGRADED,
        /** Some slice has no good copy, or the bytes, size or header differ from the manifest. */
        CORRUPT,
        /** The object is gone, or some slice has no copy that can be reached. */
        MISSING;

        public Status worse(Status other) {
            return other.ordinal() > ordinal() ? other : this;
        }
    }

    public FileVerdict {
        badCopies = List.copyOf(badCopies);
        repairs = List.copyOf(repairs);
    }

    static FileVerdict of(String path, Status status, String detail) {
        return new FileVerdict(path, status, detail, List.of(), List.of());
    }

    FileVerdict with(Status newStatus, String newDetail) {
        return new FileVerdict(path, newStatus, newDetail, badCopies, repairs);
    }
}

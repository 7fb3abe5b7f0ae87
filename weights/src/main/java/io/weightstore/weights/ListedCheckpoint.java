package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.weightstore.store.api.ObjectMeta;
import java.time.Instant;
import java.util.List;

/**
 * A checkpoint as a listing shows it: its manifest, and what the master's metadata of its objects
 * says against that manifest (found without reading a byte of them).
 *
 * @param checked whether the manifest records who imported it and its files' checksum digests (schema 2), so
 *     that a file replaced since the import can be told from metadata alone
 * @param problems for a READY checkpoint: each file that is missing or differs from the manifest (size, who wrote
 *     it, its block checksums), and a manifest written by someone other than the importer it names
 * @param replacement a replace of the checkpoint that is under way or failed, null when there is none: loaders
 *     read {@code manifest} meanwhile
 * @param leftovers files of earlier versions that a replace could not remove (a reader held them), null when there
 *     are none
 */
public record ListedCheckpoint(@JsonUnwrapped Manifest manifest, boolean checked, List<String> problems,
        @JsonInclude(JsonInclude.Include.NON_NULL) Replacement replacement,
        @JsonInclude(JsonInclude.Include.NON_NULL) Leftovers leftovers) {
    public ListedCheckpoint {
        problems = List.copyOf(problems);
    }

    /** A replace not READY yet, as its manifest says: the version it writes, from which revision, how far it got. */
    public record Replacement(int version, String revision, CheckpointStatus status, Instant updatedAt, String error) {
        static Replacement of(Manifest manifest) {
            return new Replacement(manifest.version(), manifest.revision(), manifest.status(), manifest.updatedAt(), manifest.error());
        }
    }

    /** Objects of earlier versions no manifest names, and the bytes they hold (one copy of each). */
    public record Leftovers(int objects, long bytes) {
        static Leftovers of(List<ObjectMeta> left) {
            return new Leftovers(left.size(), left.stream().mapToLong(ObjectMeta::size).sum());
        }
    }

    /**
     * A checkpoint whose manifest cannot be read, shown as FAILED with why (no loader opens it either),
     * as of when its manifest object was written and by whom the master says.
     */
    static ListedCheckpoint unreadable(CheckpointId id, ObjectMeta manifestObject, String why) {
        Manifest shown = new Manifest(Manifest.SCHEMA_VERSION, id, "", "", "", CheckpointStatus.FAILED, manifestObject.createdAt(),
                manifestObject.createdAt(), 0, why, manifestObject.owner(), 0, List.of());
        return new ListedCheckpoint(shown, false, List.of("the manifest cannot be read: " + why), null, null);
    }
}

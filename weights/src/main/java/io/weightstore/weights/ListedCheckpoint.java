package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.weightstore.store.api.ObjectMeta;
import java.time.Instant;
import java.util.List;

/**
 * A checkpoint as a listing shows it: its manifest, and what the master's metadata of its objects
 * says against that manifest (found without reading a byte of them).
 *
 * @param manifest the manifest, null when it cannot be read (then {@code unreadable} says why)
 * @param unreadable what is known of a checkpoint whose manifest cannot be read, null when it was read
 * @param checked whether the manifest records who imported it and its files' checksum digests (schema 2), so
 *     that a file replaced since the import can be told from metadata alone; null when the manifest cannot be read
 * @param problems for a READY checkpoint: each file that is missing or differs from the manifest (size, who wrote
 *     it, its block checksums), and a manifest written by someone other than the importer it names; for one whose
 *     manifest cannot be read, that
 * @param replacement a replace of the checkpoint that is under way or failed, null when there is none: loaders
 *     read {@code manifest} meanwhile
 * @param leftovers files of earlier versions that a replace could not remove (a reader held them), null when there
 *     are none
 */
public record ListedCheckpoint(@JsonUnwrapped Manifest manifest, @JsonUnwrapped Unreadable unreadable,
        @JsonInclude(JsonInclude.Include.NON_NULL) Boolean checked, List<String> problems,
        @JsonInclude(JsonInclude.Include.NON_NULL) Replacement replacement,
        @JsonInclude(JsonInclude.Include.NON_NULL) Leftovers leftovers) {
    public ListedCheckpoint {
        problems = List.copyOf(problems);
    }

    /**
     * A checkpoint whose manifest cannot be read: FAILED (no loader opens it either), with why, as of when its
     * manifest object was written and by whom the master says; nothing the manifest would have said is made up.
     */
    static ListedCheckpoint unreadable(CheckpointId id, ObjectMeta manifestObject, String why) {
        return new ListedCheckpoint(null, new Unreadable(id, manifestObject.createdAt(), manifestObject.owner(), why), null,
                List.of("the manifest cannot be read: " + why), null, null);
    }

    /** The id, whether the manifest could be read or not. */
    @JsonIgnore
    public CheckpointId checkpointId() {
        return manifest != null ? manifest.checkpointId() : unreadable.checkpointId();
    }

    /** The manifest's status, or FAILED for a manifest that cannot be read. */
    @JsonIgnore
    public CheckpointStatus status() {
        return manifest != null ? manifest.status() : unreadable.status();
    }

    /**
     * What the master says of a manifest object no one can read.
     *
     * @param createdAt when the manifest object was written
     * @param importedBy who wrote the manifest object, in the master's words (empty on a store without identities)
     * @param why why it cannot be read, shown as {@code manifestUnreadable}
     */
    @JsonPropertyOrder({"checkpointId", "status", "createdAt", "importedBy", "manifestUnreadable"})
    public record Unreadable(CheckpointId checkpointId, Instant createdAt, String importedBy,
            @JsonProperty("manifestUnreadable") String why) {
        /** Listed as FAILED: no loader opens a checkpoint whose manifest cannot be read. */
        @JsonProperty
        public CheckpointStatus status() {
            return CheckpointStatus.FAILED;
        }
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
}

package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.weightstore.store.api.ObjectMeta;
import java.util.List;

/**
 * A checkpoint as a listing shows it: its manifest, and what the master's metadata of its objects
 * says against that manifest (found without reading a byte of them).
 *
 * @param checked whether the manifest records who imported it and its files' checksum digests (schema 2), so
 *     that a file replaced since the import can be told from metadata alone
 * @param problems for a READY checkpoint: each file that is missing or differs from the manifest (size, who wrote
 *     it, its block checksums), and a manifest written by someone other than the importer it names
 */
public record ListedCheckpoint(@JsonUnwrapped Manifest manifest, boolean checked, List<String> problems) {
    public ListedCheckpoint {
        problems = List.copyOf(problems);
    }

    /**
     * A checkpoint whose manifest cannot be read, shown as FAILED with why (no loader opens it either),
     * as of when its manifest object was written and by whom the master says.
     */
    static ListedCheckpoint unreadable(CheckpointId id, ObjectMeta manifestObject, String why) {
        Manifest shown = new Manifest(Manifest.SCHEMA_VERSION, id, "", "", "", CheckpointStatus.FAILED, manifestObject.createdAt(),
                manifestObject.createdAt(), 0, why, manifestObject.owner(), List.of());
        return new ListedCheckpoint(shown, false, List.of("the manifest cannot be read: " + why));
    }
}

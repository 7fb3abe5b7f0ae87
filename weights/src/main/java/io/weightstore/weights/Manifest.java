package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.JsonErrors;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A checkpoint's record in the store (JSON, versioned schema): identity, provenance, status and
 * every file with its size and SHA-256. It is the root of trust for the checkpoint's bytes.
 *
 * <p>Schema 2 adds {@code importedBy}, the identity the master recorded as the writer of the
 * import's objects (read back from the master, never taken from the importer's own word; empty on a
 * store without identities), and per file the digest of its block checksums and of its tensor CRC
 * table, so a loader can check each file's metadata, and each tensor it receives, against the
 * manifest. Schema 1 manifests still load, unchecked beyond size and SHA-256.
 *
 * <p>Schema 3 adds versions: a checkpoint's first import is version 0, and each replace one more.
 * A file lives under the version that stored it (see {@link Catalog}), so a replace writes what
 * changed beside the version before and makes the new one visible with a single manifest write.
 * A reader older than schema 3 would look for such files where they are not, so it is told to upgrade.
 *
 * @param importedBy who wrote the import, in the master's words; null on schema 1 and until the
 *     import's first write is sealed
 * @param version the version this manifest describes; files it writes are stored under it
 * @param excluded the patterns that left files of the source out ({@code --exclude}), which a replace
 *     given none leaves out again; absent when none did, so older readers, which skip unknown fields,
 *     read every other manifest as before
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(int schemaVersion, CheckpointId checkpointId, String modelId, String revision, String source,
        CheckpointStatus status, Instant createdAt, Instant updatedAt, long totalBytes, String error, String importedBy,
        int version, List<ManifestFile> files, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> excluded) {

    /** 2: importedBy, and each file's checksum digest and tensor CRC table digest. 3: versions. */
    public static final int SCHEMA_VERSION = 3;

    public Manifest {
        files = List.copyOf(files);
        excluded = excluded == null ? List.of() : List.copyOf(excluded);
    }

    /** A manifest of an import that left nothing out. */
    public Manifest(int schemaVersion, CheckpointId checkpointId, String modelId, String revision, String source,
            CheckpointStatus status, Instant createdAt, Instant updatedAt, long totalBytes, String error, String importedBy,
            int version, List<ManifestFile> files) {
        this(schemaVersion, checkpointId, modelId, revision, source, status, createdAt, updatedAt, totalBytes, error, importedBy,
                version, files, List.of());
    }

    public byte[] toJson() {
        try {
            return Writer.JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise manifest of " + checkpointId, e);
        }
    }

    public static Manifest fromJson(byte[] json, String key) throws CheckpointException {
        Manifest manifest;
        try {
            manifest = ManifestReader.read(json);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest " + key + " is not a manifest: "
                    + JsonErrors.describe(e), e);
        }
        if (manifest.schemaVersion() > SCHEMA_VERSION) {
            throw new CheckpointException(CheckpointException.Code.UNSUPPORTED, "manifest " + key + " has schema version "
                    + manifest.schemaVersion() + "; this weightstore reads up to " + SCHEMA_VERSION + ", upgrade it");
        }
        // A file's version says where it lives; a version no import writes would send readers to keys it never wrote.
        for (ManifestFile file : manifest.files()) {
            if (file.version() < 0 || file.version() > manifest.version()) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest " + key + " names " + file.path()
                        + " as stored by version " + file.version() + ", which is not one of versions 0.." + manifest.version());
            }
            for (ColumnLayout layout : file.columnLayouts()) {
                if (layout.version() < 0 || layout.version() > manifest.version()) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest " + key + " names the column layout for "
                            + layout.worldSize() + " ranks of " + file.path() + " as stored by version " + layout.version()
                            + ", which is not one of versions 0.." + manifest.version());
                }
            }
        }
        return manifest;
    }

    /** Built on the first write: a loader only reads, and {@link ManifestReader} reads without databind. */
    private static final class Writer {
        static final ObjectMapper JSON = Json.mapper();
    }

    public Manifest withStatus(CheckpointStatus next, Instant now, String errorMessage) {
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, next, createdAt, now, totalBytes, errorMessage,
                importedBy, version, files, excluded);
    }

    public Manifest withFile(ManifestFile file, Instant now) {
        List<ManifestFile> updated = new ArrayList<>(files);
        updated.replaceAll(f -> f.path().equals(file.path()) ? file : f);
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, status, createdAt, now, totalBytes, error,
                importedBy, version, updated, excluded);
    }

    /** The manifest of an import whose objects the master recorded as written by {@code writer}. */
    public Manifest withImportedBy(String writer) {
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, status, createdAt, updatedAt, totalBytes, error,
                writer, version, files, excluded);
    }

    /**
     * Whether this manifest records what a loader checks beyond sizes: who imported it and each file's
     * checksum digest. Schema 1 manifests do not.
     */
    @JsonIgnore
    public boolean checkable() {
        return schemaVersion >= 2;
    }

    public Optional<ManifestFile> file(String path) {
        return files.stream().filter(f -> f.path().equals(path)).findFirst();
    }

    public long weightBytes() {
        return files.stream().filter(ManifestFile::isWeight).mapToLong(ManifestFile::size).sum();
    }
}

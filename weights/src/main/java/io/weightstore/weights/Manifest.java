package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A checkpoint's record in the store (JSON, versioned schema): identity, provenance, status and
 * every file with its size and SHA-256. It is the root of trust for the checkpoint's bytes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(int schemaVersion, CheckpointId checkpointId, String modelId, String revision, String source,
        CheckpointStatus status, Instant createdAt, Instant updatedAt, long totalBytes, String error, List<ManifestFile> files) {

    public static final int SCHEMA_VERSION = 1;

    private static final ObjectMapper JSON = Json.mapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public Manifest {
        files = List.copyOf(files);
    }

    public byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise manifest of " + checkpointId, e);
        }
    }

    public static Manifest fromJson(byte[] json, String key) throws CheckpointException {
        Manifest manifest;
        try {
            manifest = JSON.readValue(json, Manifest.class);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest " + key + " is not valid JSON: " + e.getMessage(), e);
        }
        if (manifest.schemaVersion() > SCHEMA_VERSION) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "manifest " + key + " has schema version "
                    + manifest.schemaVersion() + "; this weightstore reads up to " + SCHEMA_VERSION + ", upgrade it");
        }
        return manifest;
    }

    public Manifest withStatus(CheckpointStatus next, Instant now, String errorMessage) {
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, next, createdAt, now, totalBytes, errorMessage,
                files);
    }

    public Manifest withFile(ManifestFile file, Instant now) {
        List<ManifestFile> updated = new ArrayList<>(files);
        updated.replaceAll(f -> f.path().equals(file.path()) ? file : f);
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, status, createdAt, now, totalBytes, error,
                updated);
    }

    public Optional<ManifestFile> file(String path) {
        return files.stream().filter(f -> f.path().equals(path)).findFirst();
    }

    public long weightBytes() {
        return files.stream().filter(ManifestFile::isWeight).mapToLong(ManifestFile::size).sum();
    }
}

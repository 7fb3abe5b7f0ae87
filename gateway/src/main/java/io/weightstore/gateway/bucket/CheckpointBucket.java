package io.weightstore.gateway.bucket;

import io.weightstore.gateway.s3.KeyOrder;
import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The store's checkpoints as one bucket: key {@code <checkpoint-id>/<relative path>} is that file of
 * that checkpoint. Only READY checkpoints are visible; one being imported, failed or deleted has no
 * keys. An object's ETag is the file's SHA-256 from the manifest, quoted; its Last-Modified is when
 * the manifest was last written, which for a READY checkpoint is when it became READY. Manifests are
 * read on every call, so a checkpoint deleted or replaced is seen at once.
 */
public final class CheckpointBucket {
    private final String name;
    private final Catalog catalog;

    public CheckpointBucket(String name, Catalog catalog) {
        this.name = name;
        this.catalog = catalog;
    }

    public String name() {
        return name;
    }

    /** The object {@code key} names, or empty when no READY checkpoint has that file. */
    public Optional<BucketObject> find(String key) throws IOException {
        int slash = key.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        Optional<Manifest> manifest = readyManifest(key.substring(0, slash));
        Optional<ManifestFile> file = manifest.flatMap(m -> m.file(key.substring(slash + 1)));
        return file.map(f -> object(manifest.orElseThrow(), f));
    }

    /** Every object whose key starts with {@code prefix}, in S3's key order. */
    public List<ObjectInfo> list(String prefix) throws IOException {
        int slash = prefix.indexOf('/');
        List<Manifest> manifests = slash >= 0 ? readyManifest(prefix.substring(0, slash)).stream().toList()
                : catalog.list().stream().filter(m -> m.status() == CheckpointStatus.READY).toList();
        List<ObjectInfo> objects = new ArrayList<>();
        for (Manifest manifest : manifests) {
            for (ManifestFile file : manifest.files()) {
                ObjectInfo info = info(manifest, file);
                if (info.key().startsWith(prefix)) {
                    objects.add(info);
                }
            }
        }
        objects.sort(Comparator.comparing(ObjectInfo::key, KeyOrder.UTF8));
        return objects;
    }

    private Optional<Manifest> readyManifest(String id) throws IOException {
        CheckpointId checkpoint;
        try {
            checkpoint = new CheckpointId(id);
        } catch (IllegalArgumentException notAnId) {
            return Optional.empty();
        }
        return catalog.manifest(checkpoint).filter(m -> m.status() == CheckpointStatus.READY);
    }

    private BucketObject object(Manifest manifest, ManifestFile file) {
        return new BucketObject(info(manifest, file), file.sha256(), catalog.file(manifest, file));
    }

    private static ObjectInfo info(Manifest manifest, ManifestFile file) {
        Instant lastModified = manifest.updatedAt().truncatedTo(ChronoUnit.SECONDS);
        return new ObjectInfo(manifest.checkpointId() + "/" + file.path(), file.size(), '"' + file.sha256() + '"', lastModified);
    }
}

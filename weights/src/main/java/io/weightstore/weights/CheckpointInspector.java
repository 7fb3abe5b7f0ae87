package io.weightstore.weights;

import io.weightstore.format.FileKind;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A checkpoint in detail: its manifest, and for each file where its slices are, whether those nodes
 * are up, and whether its copies are all there (OK), lacking (DEGRADED) or being made (REPAIRING).
 */
public final class CheckpointInspector {
    /** A replica holder of a file and whether it is up. */
    public record Holder(String nodeId, String endpoint, boolean up) {}

    /**
     * One file as stored. {@code stored} is false when the object is missing, or not yet recorded by an
     * import under way, and then {@code copies} is null; else it says whether the file's slices have their copies, or are being copied.
     */
    public record FileDetail(String path, long size, FileKind kind, Integer tensorCount, List<String> dtypes, boolean stored,
            int slices, int replicas, boolean autoReplicas, List<Holder> nodes, ReplicaHealth copies) {}

    /** The manifest, each file, and the copies of every stored file taken together. */
    public record Report(Manifest manifest, List<FileDetail> files, ReplicaHealth copies) {}

    private final Catalog catalog;

    public CheckpointInspector(Catalog catalog) {
        this.catalog = catalog;
    }

    public Report run(CheckpointId id) throws IOException {
        Manifest manifest = catalog.existingManifest(id);
        // Asked once, before the files: a copy that ends in between shows as done, not as lacking.
        StoreStatus status = catalog.store().status();
        List<CopyInFlight> copies = status.replication().copies();
        Map<String, NodeStatus> nodes = status.nodes().stream().collect(Collectors.toMap(NodeStatus::nodeId, n -> n));
        List<FileDetail> files = new ArrayList<>();
        List<ObjectMeta> objects = new ArrayList<>();
        for (StoredFile file : catalog.files(manifest)) {
            files.add(detail(file, objects, copies));
        }
        return new Report(manifest, files, ReplicaHealth.of(objects, nodes, copies));
    }

    private FileDetail detail(StoredFile stored, List<ObjectMeta> objects, List<CopyInFlight> copies) throws IOException {
        ManifestFile file = stored.file();
        ObjectReader reader;
        try {
            reader = stored.open();
        } catch (StoreException e) {
            if (e.code() != StoreException.Code.NOT_FOUND) {
                throw e;
            }
            return notStored(file);
        } catch (CheckpointException e) {
            // An import under way, or cut short, stores a file before it records the file's checksums in the manifest: until
            // then the object is not the checkpoint's, and a run of the import again checks it and keeps or sends it again.
            if (file.checksumDigest() != null) {
                throw e;
            }
            return notStored(file);
        }
        try (reader) {
            Map<String, NodeStatus> nodes = reader.nodes();
            List<Holder> holders = new TreeSet<>(reader.object().slices().stream().map(SliceMeta::nodeIds).flatMap(List::stream)
                    .toList()).stream()
                    .map(n -> nodes.containsKey(n) ? new Holder(n, nodes.get(n).endpoint().toString(), nodes.get(n).up())
                            : new Holder(n, "?", false))
                    .toList();
            List<String> dtypes = file.isSafetensors() ? dtypes(reader) : List.of();
            ObjectMeta object = reader.object();
            objects.add(object);
            return new FileDetail(file.path(), reader.size(), file.kind(), file.tensorCount(), dtypes, true, object.slices().size(),
                    object.replicas(), object.autoReplicas(), holders, ReplicaHealth.of(List.of(object), nodes, copies));
        }
    }

    private static FileDetail notStored(ManifestFile file) {
        return new FileDetail(file.path(), file.size(), file.kind(), file.tensorCount(), List.of(), false, 0, 0, false, List.of(), null);
    }

    /**
     * The dtypes the file's header names; none when no copy can serve the header now, which the file's
     * copies then show (UNREADABLE), so that one such file does not end the inspection of the others.
     */
    private static List<String> dtypes(ObjectReader reader) throws IOException {
        try {
            SafetensorsHeader header = SafetensorsHeaderParser.read(new StoreRangeSource(reader));
            return header.tensors().stream().map(TensorInfo::dtype).map(Enum::name).distinct().sorted().toList();
        } catch (StoreException e) {
            if (!e.noCopyServed()) {
                throw e;
            }
            return List.of();
        }
    }
}

package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.NodeStatus;
import io.weightstore.store.ObjectInfo;
import io.weightstore.store.StoreClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/** A checkpoint in detail: its manifest, and for each file where its slices are and whether those nodes are up. */
public final class CheckpointInspector {
    /** A replica holder of a file and whether it is up. */
    public record Holder(String nodeId, String endpoint, boolean up) {}

    /** One file as stored. {@code stored} is false when the object is missing. */
    public record FileDetail(String path, long size, String kind, Integer tensorCount, List<String> dtypes, boolean stored,
            int slices, int replicas, List<Holder> nodes) {}

    public record Report(Manifest manifest, List<FileDetail> files) {}

    private final Catalog catalog;
    private final StoreClient store;

    public CheckpointInspector(Catalog catalog) {
        this.catalog = catalog;
        this.store = catalog.store();
    }

    public Report run(String id) throws IOException {
        Manifest manifest = catalog.manifest(id).orElseThrow(() ->
                new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store"));
        List<FileDetail> files = new ArrayList<>();
        for (ManifestFile file : manifest.files()) {
            files.add(detail(id, file));
        }
        store.releaseLeases();
        return new Report(manifest, files);
    }

    private FileDetail detail(String id, ManifestFile file) throws IOException {
        String key = CatalogKeys.file(id, file.path());
        ObjectInfo object = store.find(key).orElse(null);
        if (object == null) {
            return new FileDetail(file.path(), file.size(), file.kind(), file.tensorCount(), List.of(), false, 0, 0, List.of());
        }
        Map<String, NodeStatus> nodes = store.replicaNodes(key).stream()
                .collect(Collectors.toMap(NodeStatus::nodeId, Function.identity()));
        List<Holder> holders = new TreeSet<>(object.slices().stream().flatMap(s -> s.nodeIds().stream()).toList()).stream()
                .map(n -> nodes.containsKey(n) ? new Holder(n, nodes.get(n).endpoint(), nodes.get(n).up()) : new Holder(n, "?", false))
                .toList();
        List<String> dtypes = List.of();
        if (file.headerLength() != null) {
            SafetensorsHeader header = SafetensorsHeaderParser.read(new StoreRangeSource(store, key, object.size()));
            dtypes = header.tensors().stream().map(TensorInfo::dtype).map(Enum::name).distinct().sorted().toList();
        }
        return new FileDetail(file.path(), object.size(), file.kind(), file.tensorCount(), dtypes, true, object.slices().size(),
                object.replicas(), holders);
    }
}

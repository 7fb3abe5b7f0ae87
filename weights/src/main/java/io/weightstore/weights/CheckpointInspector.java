package io.weightstore.weights;

import io.weightstore.format.FileKind;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** A checkpoint in detail: its manifest, and for each file where its slices are and whether those nodes are up. */
public final class CheckpointInspector {
    /** A replica holder of a file and whether it is up. */
    public record Holder(String nodeId, String endpoint, boolean up) {}

    /** One file as stored. {@code stored} is false when the object is missing. */
    public record FileDetail(String path, long size, FileKind kind, Integer tensorCount, List<String> dtypes, boolean stored,
            int slices, int replicas, List<Holder> nodes) {}

    public record Report(Manifest manifest, List<FileDetail> files) {}

    private final Catalog catalog;

    public CheckpointInspector(Catalog catalog) {
        this.catalog = catalog;
    }

    public Report run(CheckpointId id) throws IOException {
        Manifest manifest = catalog.existingManifest(id);
        List<FileDetail> files = new ArrayList<>();
        for (StoredFile file : catalog.files(manifest)) {
            files.add(detail(file));
        }
        return new Report(manifest, files);
    }

    private FileDetail detail(StoredFile stored) throws IOException {
        ManifestFile file = stored.file();
        ObjectReader reader;
        try {
            reader = stored.open();
        } catch (StoreException e) {
            if (e.code() != StoreException.Code.NOT_FOUND) {
                throw e;
            }
            return new FileDetail(file.path(), file.size(), file.kind(), file.tensorCount(), List.of(), false, 0, 0, List.of());
        }
        try (reader) {
            Map<String, NodeStatus> nodes = reader.nodes();
            List<Holder> holders = new TreeSet<>(reader.object().slices().stream().map(SliceMeta::nodeIds).flatMap(List::stream)
                    .toList()).stream()
                    .map(n -> nodes.containsKey(n) ? new Holder(n, nodes.get(n).endpoint().toString(), nodes.get(n).up())
                            : new Holder(n, "?", false))
                    .toList();
            List<String> dtypes = List.of();
            if (file.isSafetensors()) {
                SafetensorsHeader header = SafetensorsHeaderParser.read(new StoreRangeSource(reader));
                dtypes = header.tensors().stream().map(TensorInfo::dtype).map(Enum::name).distinct().sorted().toList();
            }
            return new FileDetail(file.path(), reader.size(), file.kind(), file.tensorCount(), dtypes, true,
                    reader.object().slices().size(), reader.object().replicas(), holders);
        }
    }
}

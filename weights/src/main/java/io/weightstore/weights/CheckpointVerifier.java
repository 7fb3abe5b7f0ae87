package io.weightstore.weights;

import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.store.NodeStatus;
import io.weightstore.store.ObjectInfo;
import io.weightstore.store.Range;
import io.weightstore.store.StoreClient;
import io.weightstore.store.StoreException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/**
 * Checks a stored checkpoint against its manifest. The full check re-reads every byte through one
 * reused off-heap buffer and compares SHA-256; the quick one checks sizes, that every slice has a
 * replica on a node that is up, and that safetensors headers parse.
 */
public final class CheckpointVerifier {
    private static final long BUFFER_BYTES = 64L << 20;

    private final Catalog catalog;
    private final StoreClient store;

    public CheckpointVerifier(Catalog catalog) {
        this.catalog = catalog;
        this.store = catalog.store();
    }

    public List<FileVerdict> run(String id, boolean quick, LongConsumer progress) throws IOException {
        Manifest manifest = catalog.manifest(id).orElseThrow(() ->
                new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store"));
        List<FileVerdict> verdicts = new ArrayList<>();
        // Shared: the client's worker threads fill the buffer in parallel pieces.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = quick ? null : arena.allocate(BUFFER_BYTES, 64);
            for (ManifestFile file : manifest.files()) {
                verdicts.add(verify(id, file, quick, buffer, progress));
            }
        }
        store.releaseLeases();
        return verdicts;
    }

    private FileVerdict verify(String id, ManifestFile file, boolean quick, MemorySegment buffer, LongConsumer progress)
            throws IOException {
        String key = CatalogKeys.file(id, file.path());
        ObjectInfo object = store.find(key).orElse(null);
        if (object == null) {
            return new FileVerdict(file.path(), FileVerdict.Status.MISSING, "no object " + key);
        }
        if (object.size() != file.size()) {
            return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, "stored size " + object.size() + ", manifest says "
                    + file.size());
        }
        try {
            return quick ? quickCheck(key, file, object) : fullCheck(key, file, buffer, progress);
        } catch (StoreException e) {
            FileVerdict.Status status = e.code() == StoreException.Code.CORRUPT ? FileVerdict.Status.CORRUPT
                    : e.code() == StoreException.Code.UNAVAILABLE ? FileVerdict.Status.MISSING : null;
            if (status == null) {
                throw e;
            }
            return new FileVerdict(file.path(), status, e.getMessage());
        }
    }

    private FileVerdict quickCheck(String key, ManifestFile file, ObjectInfo object) throws IOException {
        Map<String, Boolean> up = store.replicaNodes(key).stream().collect(Collectors.toMap(NodeStatus::nodeId, NodeStatus::up));
        for (int i = 0; i < object.slices().size(); i++) {
            if (object.slices().get(i).nodeIds().stream().noneMatch(n -> up.getOrDefault(n, false))) {
                return new FileVerdict(file.path(), FileVerdict.Status.MISSING, "slice " + i + " has no replica on a node that is up");
            }
        }
        if (file.headerLength() != null) {
            try {
                SafetensorsHeaderParser.read(new StoreRangeSource(store, key, file.size()));
            } catch (SafetensorsFormatException e) {
                return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, "header: " + e.getMessage());
            }
        }
        return new FileVerdict(file.path(), FileVerdict.Status.OK, "size, slices and header");
    }

    private FileVerdict fullCheck(String key, ManifestFile file, MemorySegment buffer, LongConsumer progress) throws IOException {
        Sha256 sha = new Sha256();
        for (long done = 0; done < file.size(); ) {
            long length = Math.min(buffer.byteSize(), file.size() - done);
            MemorySegment chunk = buffer.asSlice(0, length);
            store.readInto(key, List.of(new Range(done, length)), chunk);
            sha.update(chunk);
            done += length;
            progress.accept(length);
        }
        String actual = sha.hex();
        if (!actual.equals(file.sha256())) {
            return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, "sha256 " + actual + ", manifest says " + file.sha256());
        }
        return new FileVerdict(file.path(), FileVerdict.Status.OK, "sha256 " + actual);
    }
}

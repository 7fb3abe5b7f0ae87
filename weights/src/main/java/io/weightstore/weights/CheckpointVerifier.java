package io.weightstore.weights;

import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a stored checkpoint against its manifest. Both checks first compare each object's metadata
 * with the manifest (size, who wrote it, the digest of its block checksums) and each tensor CRC table
 * with its recorded SHA-256. The full check then re-reads every byte through one reused off-heap
 * buffer and compares SHA-256; the quick one checks that every slice has a replica on a node that is
 * up, and that safetensors headers parse.
 */
public final class CheckpointVerifier {
    private final Catalog catalog;

    public CheckpointVerifier(Catalog catalog) {
        this.catalog = catalog;
    }

    public List<FileVerdict> run(CheckpointId id, boolean quick, Progress progress) throws IOException {
        Manifest manifest = catalog.existingManifest(id);
        List<FileVerdict> verdicts = new ArrayList<>();
        // Shared: the client's worker threads fill the buffer in parallel pieces.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = quick ? MemorySegment.NULL : arena.allocate(VerifiedCopy.CHUNK, 64);
            for (StoredFile file : catalog.files(manifest)) {
                verdicts.add(verify(file, manifest.checkable(), quick, buffer, progress));
            }
        }
        return verdicts;
    }

    private FileVerdict verify(StoredFile file, boolean checkable, boolean quick, MemorySegment buffer, Progress progress)
            throws IOException {
        Optional<ObjectMeta> object = file.object();
        if (object.isEmpty()) {
            return new FileVerdict(file.path(), FileVerdict.Status.MISSING, "no object " + file.key());
        }
        Optional<String> mismatch = file.mismatch(object.get());
        if (mismatch.isPresent()) {
            return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, mismatch.get());
        }
        try {
            file.tensorCrcs();
            FileVerdict verdict;
            if (quick) {
                verdict = quickCheck(file);
            } else {
                file.verifiedCopy(VerifiedCopy.Target.discard(buffer), progress);
                verdict = new FileVerdict(file.path(), FileVerdict.Status.OK, "sha256 " + file.file().sha256());
            }
            return checkable ? verdict : new FileVerdict(verdict.path(), verdict.status(), verdict.detail()
                    + "; schema 1 manifest: who wrote it and its checksums are not recorded, so not checked");
        } catch (CheckpointException e) {
            if (e.code() == CheckpointException.Code.CORRUPT) {
                return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, e.getMessage());
            }
            throw e;
        } catch (StoreException e) {
            FileVerdict.Status status = switch (e.code()) {
                case CORRUPT -> FileVerdict.Status.CORRUPT;
                case UNAVAILABLE -> FileVerdict.Status.MISSING;
                default -> throw e;
            };
            return new FileVerdict(file.path(), status, e.getMessage());
        }
    }

    private FileVerdict quickCheck(StoredFile file) throws IOException {
        try (ObjectReader reader = file.open()) {
            Map<String, NodeStatus> nodes = reader.nodes();
            List<io.weightstore.store.api.SliceMeta> slices = reader.object().slices();
            for (int i = 0; i < slices.size(); i++) {
                boolean anyUp = slices.get(i).nodeIds().stream().anyMatch(n -> nodes.containsKey(n) && nodes.get(n).up());
                if (!anyUp) {
                    return new FileVerdict(file.path(), FileVerdict.Status.MISSING, "slice " + i + " has no replica on a node that is up");
                }
            }
            if (file.file().isSafetensors()) {
                try {
                    SafetensorsHeaderParser.read(new StoreRangeSource(reader));
                } catch (SafetensorsFormatException e) {
                    return new FileVerdict(file.path(), FileVerdict.Status.CORRUPT, "header: " + e.getMessage());
                }
            }
        }
        return new FileVerdict(file.path(), FileVerdict.Status.OK, "size, slices and header");
    }
}

package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One file of a checkpoint in the store, with what its manifest says of it; every copy out of the
 * store is checked against the manifest's size and SHA-256 before anyone sees it.
 */
public final class StoredFile {
    private final StoreClient store;
    private final CheckpointId checkpoint;
    private final ManifestFile file;
    private final String key;

    StoredFile(StoreClient store, CheckpointId checkpoint, ManifestFile file, String key) {
        this.store = store;
        this.checkpoint = checkpoint;
        this.file = file;
        this.key = key;
    }

    public ManifestFile file() {
        return file;
    }

    public String path() {
        return file.path();
    }

    public String key() {
        return key;
    }

    /** The object holding the file, or empty when it is missing. */
    public Optional<ObjectMeta> object() throws IOException {
        return store.find(key);
    }

    /** Opens the file for reading under a read lease; refuses an object whose size is not the manifest's. */
    public ObjectReader open() throws IOException {
        ObjectReader reader = store.open(key);
        if (reader.size() != file.size()) {
            reader.close();
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + file.path() + " of " + checkpoint + " has "
                    + reader.size() + " bytes, the manifest says " + file.size());
        }
        return reader;
    }

    /** Reads every byte through {@code target} and fails with CORRUPT unless they hash to the manifest's SHA-256. */
    public void verifiedCopy(VerifiedCopy.Target target, Progress progress) throws IOException {
        String actual;
        try (ObjectReader reader = open()) {
            actual = VerifiedCopy.run(reader, VerifiedCopy.CHUNK, target, progress);
        }
        if (!actual.equals(file.sha256())) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, file.path() + " of " + checkpoint + " read back with sha256 "
                    + actual + ", the manifest says " + file.sha256());
        }
    }

    /** Writes the file to {@code target}, checked before it appears under its name. */
    public void exportTo(Path target, Progress progress) throws IOException {
        LocalFiles.writeAtomically(target, file.size(), mapped -> verifiedCopy(VerifiedCopy.Target.into(mapped), progress));
    }

    /** Whether {@code local} already holds exactly this file (size and SHA-256). */
    public boolean matches(Path local) throws IOException {
        if (!Files.isRegularFile(local) || Files.size(local) != file.size()) {
            return false;
        }
        try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(local, StandardOpenOption.READ)) {
            MemorySegment bytes = file.size() == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena);
            return Sha256.of(bytes).equals(file.sha256());
        }
    }
}

package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.checks.BlockChecksumDigest;
import io.weightstore.weights.checks.TensorCrcTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One file of a checkpoint in the store, with what its manifest says of it. Opening it checks the
 * object's metadata against the manifest (size, who wrote it, the digest of its block checksums),
 * so a file replaced since the import is refused before a byte is read; every copy out of the store
 * is checked against the manifest's SHA-256 before anyone sees it.
 */
public final class StoredFile {
    /** The most bytes a tensor CRC table is read with. */
    public static final long MAX_TABLE_BYTES = 64L << 20;

    private final StoreClient store;
    private final Manifest manifest;
    private final ManifestFile file;
    private final String key;
    private final String checksKey;

    StoredFile(StoreClient store, Manifest manifest, ManifestFile file, String key, String checksKey) {
        this.store = store;
        this.manifest = manifest;
        this.file = file;
        this.key = key;
        this.checksKey = checksKey;
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

    /** Where the file's tensor CRC table is stored. */
    public String checksKey() {
        return checksKey;
    }

    /** Where the file's column layout {@code layout} is stored. */
    public String columnsKey(ColumnLayout layout) {
        return Catalog.columnsKey(manifest.checkpointId(), layout.version(), layout.worldSize(), file.path());
    }

    /**
     * Opens the file's column layout {@code layout} under a read lease, refusing an object that is not the one the import
     * stored (its size, who wrote it, the digest of its block checksums), as {@link #open} refuses a file's.
     */
    public ObjectReader openColumns(ColumnLayout layout) throws IOException {
        String columnsKey = columnsKey(layout);
        ObjectReader reader = store.open(columnsKey);
        try {
            requireLayoutMatches(layout, reader.object());
        } catch (CheckpointException e) {
            reader.close();
            throw e;
        }
        return reader;
    }

    /** Fails with CORRUPT, saying what differs, unless {@code object}'s metadata is what the manifest records of {@code layout}. */
    public void requireLayoutMatches(ColumnLayout layout, ObjectMeta object) throws CheckpointException {
        Optional<String> mismatch = mismatch(layoutName(layout), layout.size(), layout.checksumDigest(), object);
        if (mismatch.isPresent()) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, mismatch.get());
        }
    }

    private String layoutName(ColumnLayout layout) {
        return "the column layout for " + layout.worldSize() + " ranks of " + file.path() + " of " + manifest.checkpointId();
    }

    /** The object holding the file, or empty when it is missing. */
    public Optional<ObjectMeta> object() throws IOException {
        return store.find(key);
    }

    /**
     * What in {@code object}'s metadata differs from the manifest, or empty when nothing does: its size;
     * who wrote it, which must be who imported the checkpoint; and the digest of its block checksums,
     * which changes whenever other bytes are put in its place. Metadata only: no byte is read.
     */
    public Optional<String> mismatch(ObjectMeta object) {
        return mismatch("stored " + file.path() + " of " + manifest.checkpointId(), file.size(), file.checksumDigest(), object);
    }

    /** What in {@code object}'s metadata differs from {@code size} and {@code checksumDigest} as recorded of {@code stored}. */
    private Optional<String> mismatch(String stored, long size, String checksumDigest, ObjectMeta object) {
        if (object.size() != size) {
            return Optional.of(stored + " has " + object.size() + " bytes, the manifest says " + size);
        }
        if (!manifest.checkable()) {
            return Optional.empty();
        }
        if (!object.owner().equals(manifest.importedBy())) {
            return Optional.of(stored + " was written by " + Owners.describe(object.owner()) + ", not by "
                    + (manifest.importedBy() == null ? "the importer, whom the manifest does not name"
                            : Owners.describe(manifest.importedBy()) + ", who imported the checkpoint") + ": it was replaced since");
        }
        String digest = BlockChecksumDigest.of(object);
        if (!digest.equals(checksumDigest)) {
            return Optional.of(stored + " has other bytes than the import stored: the digest of its block checksums is " + digest
                    + ", the manifest recorded " + checksumDigest);
        }
        return Optional.empty();
    }

    /** Opens the file for reading under a read lease; refuses an object whose metadata is not the manifest's ({@link #mismatch}). */
    public ObjectReader open() throws IOException {
        ObjectReader reader = store.open(key);
        try {
            requireMatches(reader.object());
        } catch (CheckpointException e) {
            reader.close();
            throw e;
        }
        return reader;
    }

    /** Fails with CORRUPT, saying what differs, unless {@code object}'s metadata is the manifest's ({@link #mismatch}). */
    public void requireMatches(ObjectMeta object) throws CheckpointException {
        Optional<String> mismatch = mismatch(object);
        if (mismatch.isPresent()) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, mismatch.get());
        }
    }

    /**
     * The CRCs of the file's tensors and of their shards as the import recorded them, checked against
     * the manifest's SHA-256 of the table; empty when the manifest records none (schema 1, or not a
     * safetensors file).
     */
    public Optional<TensorCrcTable> tensorCrcs() throws IOException {
        if (file.tensorCrcsSha256() == null) {
            return Optional.empty();
        }
        byte[] json;
        try (ObjectReader table = store.open(checksKey)) {
            requireTableFits(table.size());
            json = new byte[(int) table.size()];
            table.read(new Range(0, json.length), MemorySegment.ofArray(json));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "the tensor CRC table of " + file.path() + " of "
                        + manifest.checkpointId() + " (" + checksKey + ") is missing, though the manifest records it", e);
            }
            throw e;
        }
        return Optional.of(tensorCrcs(json));
    }

    /**
     * Refuses a tensor CRC table of {@code size} bytes before it is read onto the heap, where no table
     * is so large: a file holds at most {@link SafetensorsHeader#MAX_TENSORS} tensors, at a few hundred
     * bytes of table each.
     */
    public void requireTableFits(long size) throws CheckpointException {
        if (size > MAX_TABLE_BYTES) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "the tensor CRC table of " + file.path() + " of "
                    + manifest.checkpointId() + " (" + checksKey + ") has " + size + " bytes, more than any table ("
                    + MAX_TABLE_BYTES + "): not reading it");
        }
    }

    /** The file's tensor CRC table from {@code json}, its bytes as read from {@link #checksKey}, checked against the manifest's SHA-256 of it. */
    public TensorCrcTable tensorCrcs(byte[] json) throws CheckpointException {
        String digest = Sha256.of(MemorySegment.ofArray(json));
        if (!digest.equals(file.tensorCrcsSha256())) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "the tensor CRC table of " + file.path() + " of "
                    + manifest.checkpointId() + " has sha256 " + digest + ", the manifest recorded " + file.tensorCrcsSha256());
        }
        try {
            return TensorCrcTable.fromJson(json, checksKey);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, e.getMessage(), e);
        }
    }

    /** Reads every byte through {@code target} and fails with CORRUPT unless they hash to the manifest's SHA-256. */
    public void verifiedCopy(VerifiedCopy.Target target, Progress progress) throws IOException {
        verifiedCopy(this::open, file.path() + " of " + manifest.checkpointId(), file.sha256(), target, progress);
    }

    /**
     * Reads every byte of the file's column layout {@code layout} through {@code target} and fails with CORRUPT unless they
     * hash to the SHA-256 the import recorded.
     */
    public void verifiedLayoutCopy(ColumnLayout layout, VerifiedCopy.Target target, Progress progress) throws IOException {
        verifiedCopy(() -> openColumns(layout), layoutName(layout), layout.sha256(), target, progress);
    }

    /** Opens an object of the file under a read lease, refusing one not as the manifest records it. */
    @FunctionalInterface
    private interface Opening {
        ObjectReader open() throws IOException;
    }

    private static void verifiedCopy(Opening opening, String what, String sha256, VerifiedCopy.Target target, Progress progress)
            throws IOException {
        String actual;
        try (ObjectReader reader = opening.open()) {
            actual = VerifiedCopy.run(reader, VerifiedCopy.CHUNK, target, progress);
        }
        if (!actual.equals(sha256)) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, what + " read back with sha256 " + actual
                    + ", the manifest says " + sha256);
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

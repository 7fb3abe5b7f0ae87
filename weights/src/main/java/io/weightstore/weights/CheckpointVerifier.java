package io.weightstore.weights;

import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.RepairOutcome;
import io.weightstore.store.client.ReplicaVerdict;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks a stored checkpoint against its manifest, copy by copy. Every check first compares each
 * object's metadata with the manifest (size, who wrote it, the digest of its block checksums) and
 * each tensor CRC table with its recorded SHA-256: a file replaced since the import is CORRUPT, and
 * no repair can make it good. Then every check looks at every copy of every slice of the manifest
 * and of each file, so one bad copy makes a file DEGRADED even when reads never touch it. The full
 * check has each node verify every checksum block of its copies in place, then re-reads every byte
 * through the normal read path (one reused off-heap buffer) and compares SHA-256; the quick one
 * checks that copies are on nodes that are up, and that safetensors headers parse; a repair runs
 * the full check and rewrites bad or missing copies from good ones before it reads the bytes.
 */
public final class CheckpointVerifier {
    /** How far a verify goes. */
    public enum Mode {
        /** Sizes, copies on nodes that are up, headers: no data read. */
        QUICK,
        /** Every copy's checksums where it lies, and every byte against the manifest's SHA-256. */
        FULL,
        /** FULL, rewriting bad or missing copies from good ones first. */
        REPAIR
    }

    /** The verdicts of one verify: the manifest object's copies, then each file. */
    public record Report(CheckpointId checkpointId, Mode mode, FileVerdict manifest, List<FileVerdict> files) {
        public Report {
            files = List.copyOf(files);
        }

        /** The worst status of the manifest and the files. */
        public FileVerdict.Status status() {
            FileVerdict.Status worst = manifest.status();
            for (FileVerdict file : files) {
                worst = worst.worse(file.status());
            }
            return worst;
        }

        public boolean ok() {
            return status() == FileVerdict.Status.OK;
        }

        /** Every repair made, the manifest's first. */
        public List<RepairOutcome> repairs() {
            List<RepairOutcome> all = new ArrayList<>(manifest.repairs());
            files.forEach(f -> all.addAll(f.repairs()));
            return all;
        }
    }

    /** How the manifest object is named in verdicts: it is not one of the checkpoint's files. */
    private static final String MANIFEST = "(manifest)";

    private final Catalog catalog;

    public CheckpointVerifier(Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * Verifies a READY checkpoint; any other is refused naming its status, as its manifest records no
     * digests yet (importing) or of a run that gave up (failed), against which every file would read as corrupt.
     */
    public Report run(CheckpointId id, Mode mode, Progress progress) throws IOException {
        HeldCheckpoint held;
        try {
            held = HeldCheckpoint.of(catalog, id);
        } catch (StoreException e) {
            return unreadableManifest(id, mode, e);
        }
        Manifest manifest = held.manifest();
        List<FileVerdict> verdicts = new ArrayList<>();
        FileVerdict manifestVerdict;
        // Shared: the client's worker threads fill the buffer in parallel pieces.
        try (held; Arena arena = Arena.ofShared()) {
            try (ObjectReader reader = catalog.store().open(Catalog.manifestKey(id))) {
                manifestVerdict = copies(MANIFEST, reader, mode);
            }
            MemorySegment buffer = mode == Mode.QUICK ? MemorySegment.NULL : arena.allocate(VerifiedCopy.CHUNK, 64);
            for (StoredFile file : held.files()) {
                FileVerdict verdict = verify(file, mode, buffer, progress);
                verdicts.add(manifest.checkable() ? verdict : verdict.with(verdict.status(), verdict.detail()
                        + "; schema 1 manifest: who wrote it and its checksums are not recorded, so not checked"));
            }
        }
        return new Report(id, mode, manifestVerdict, verdicts);
    }

    /**
     * The verdict on a manifest that no copy could serve ({@code failed}): its copies, each checked,
     * say why (on a node down or gone, or bad), and without it no file can be named. A failure that is
     * not the copies' (the master's, a refused credential), or that the check does not find again, is
     * thrown as it was.
     */
    private Report unreadableManifest(CheckpointId id, Mode mode, StoreException failed) throws IOException {
        if (!failed.noCopyServed()) {
            throw failed;
        }
        FileVerdict manifest;
        try (ObjectReader reader = catalog.store().open(Catalog.manifestKey(id))) {
            manifest = copies(MANIFEST, reader, mode);
        }
        if (!unusable(manifest)) {
            throw failed;
        }
        return new Report(id, mode, manifest, List.of());
    }

    /** The file's own verdict, then its column layouts': a bad layout does not hide what is true of the file. */
    private FileVerdict verify(StoredFile file, Mode mode, MemorySegment buffer, Progress progress) throws IOException {
        FileVerdict verdict = verifyFile(file, mode, buffer, progress);
        for (ColumnLayout layout : file.file().columnLayouts()) {
            verdict = combined(verdict, layout(file, layout, mode, buffer));
        }
        return verdict;
    }

    private FileVerdict verifyFile(StoredFile file, Mode mode, MemorySegment buffer, Progress progress) throws IOException {
        Optional<ObjectMeta> object = file.object();
        if (object.isEmpty()) {
            return FileVerdict.of(file.path(), FileVerdict.Status.MISSING, "no object " + file.key());
        }
        Optional<String> mismatch = file.mismatch(object.get());
        if (mismatch.isPresent()) {
            return FileVerdict.of(file.path(), FileVerdict.Status.CORRUPT, mismatch.get());
        }
        Optional<FileVerdict> table = tableCopies(file, mode);
        if (table.isPresent() && unusable(table.get())) {
            return table.get();
        }
        try {
            file.tensorCrcs();
        } catch (CheckpointException e) {
            if (e.code() == CheckpointException.Code.CORRUPT) {
                return FileVerdict.of(file.path(), FileVerdict.Status.CORRUPT, e.getMessage());
            }
            throw e;
        }
        FileVerdict copies;
        try (ObjectReader reader = file.open()) {
            copies = copies(file.path(), reader, mode);
            if (table.isPresent()) {
                copies = combined(copies, table.get());
            }
            if (unusable(copies)) {
                return copies;
            }
            if (mode == Mode.QUICK) {
                return headerCheck(file, reader, copies);
            }
        }
        return hashCheck(file, copies, buffer, progress);
    }

    /**
     * The copies of the file's tensor CRC table, checked and repaired as the file's own: a load reads
     * the table beside the file, so a table with no good copy left fails every load of it. Empty when
     * the manifest records no table.
     */
    private Optional<FileVerdict> tableCopies(StoredFile file, Mode mode) throws IOException {
        if (file.file().tensorCrcsSha256() == null) {
            return Optional.empty();
        }
        try (ObjectReader reader = catalog.store().open(file.checksKey())) {
            FileVerdict table = copies(file.path(), reader, mode);
            return Optional.of(table.with(table.status(), "its tensor CRC table: " + table.detail()));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return Optional.of(FileVerdict.of(file.path(), FileVerdict.Status.MISSING, "no object " + file.checksKey()
                        + ", the tensor CRC table the manifest records"));
            }
            throw e;
        }
    }

    /**
     * The verdict on the file's column layout {@code layout}: its metadata against the manifest, its copies (checked and
     * repaired as the file's own: a tensor-parallel load reads its column shards from it), and in a full check every byte
     * against the SHA-256 the import recorded.
     */
    private static FileVerdict layout(StoredFile file, ColumnLayout layout, Mode mode, MemorySegment buffer) throws IOException {
        String what = "its column layout for " + layout.worldSize() + " ranks: ";
        ObjectReader reader;
        try {
            reader = file.openColumns(layout);
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return FileVerdict.of(file.path(), FileVerdict.Status.MISSING, what + "no object " + file.columnsKey(layout));
            }
            throw e;
        } catch (CheckpointException e) {
            if (e.code() == CheckpointException.Code.CORRUPT) {
                return FileVerdict.of(file.path(), FileVerdict.Status.CORRUPT, e.getMessage());
            }
            throw e;
        }
        try (reader) {
            FileVerdict copies = copies(file.path(), reader, mode);
            copies = copies.with(copies.status(), what + copies.detail());
            if (mode == Mode.QUICK || unusable(copies)) {
                return copies;
            }
            return hashCheck(copies, () -> file.verifiedLayoutCopy(layout, VerifiedCopy.Target.discard(buffer), Progress.NONE),
                    layout.sha256());
        }
    }

    /**
     * The file's copies' verdict with another of its objects' (its table's, a layout's): the worse status, and its bad copies
     * and repairs named too.
     */
    private static FileVerdict combined(FileVerdict file, FileVerdict other) {
        if (other.status() == FileVerdict.Status.OK && other.repairs().isEmpty()) {
            return file;
        }
        List<ReplicaVerdict> bad = new ArrayList<>(file.badCopies());
        bad.addAll(other.badCopies());
        List<RepairOutcome> repairs = new ArrayList<>(file.repairs());
        repairs.addAll(other.repairs());
        return new FileVerdict(file.path(), file.status().worse(other.status()), file.detail() + "; " + other.detail(), bad, repairs);
    }

    /** Whether some slice has no good copy: nothing can be read, so nothing more is checked. */
    private static boolean unusable(FileVerdict copies) {
        return copies.status() == FileVerdict.Status.CORRUPT || copies.status() == FileVerdict.Status.MISSING;
    }

    /** The copies' verdict, after repairing them when asked to and there is something to repair. */
    private static FileVerdict copies(String path, ObjectReader reader, Mode mode) throws IOException {
        List<ReplicaVerdict> verdicts = mode == Mode.QUICK ? reader.replicaPresence() : reader.checkReplicas();
        CopyHealth health = CopyHealth.of(reader.object(), verdicts);
        // A file that is CORRUPT or MISSING in one slice may still have copies to restore in the others.
        if (mode != Mode.REPAIR || health.status() == FileVerdict.Status.OK) {
            return new FileVerdict(path, health.status(), health.detail(), health.bad(), List.of());
        }
        List<RepairOutcome> repairs = reader.repair(verdicts);
        CopyHealth after = CopyHealth.of(reader.object(), reader.checkReplicas());
        return new FileVerdict(path, after.status(), after.detail() + "; " + CopyHealth.summary(repairs), health.bad(), repairs);
    }

    private static FileVerdict headerCheck(StoredFile file, ObjectReader reader, FileVerdict copies) throws IOException {
        if (file.file().isSafetensors()) {
            try {
                SafetensorsHeaderParser.read(new StoreRangeSource(reader));
            } catch (SafetensorsFormatException e) {
                return copies.with(FileVerdict.Status.CORRUPT, "header: " + e.getMessage());
            } catch (StoreException e) {
                return readFailed(copies, e);
            }
        }
        return copies.with(copies.status(), copies.detail() + (file.file().isSafetensors() ? "; header parses" : ""));
    }

    /** Every byte through the normal read path, against the manifest's SHA-256. */
    private static FileVerdict hashCheck(StoredFile file, FileVerdict copies, MemorySegment buffer, Progress progress) throws IOException {
        return hashCheck(copies, () -> file.verifiedCopy(VerifiedCopy.Target.discard(buffer), progress), file.file().sha256());
    }

    /** A read of every byte of an object against its recorded SHA-256, failing with CORRUPT when they differ. */
    @FunctionalInterface
    private interface HashedRead {
        void run() throws IOException;
    }

    /** {@code copies} with what {@code read} found: CORRUPT for other bytes, the copies' state for a read no copy served. */
    private static FileVerdict hashCheck(FileVerdict copies, HashedRead read, String sha256) throws IOException {
        try {
            read.run();
        } catch (CheckpointException e) {
            if (e.code() == CheckpointException.Code.CORRUPT) {
                return copies.with(FileVerdict.Status.CORRUPT, e.getMessage());
            }
            throw e;
        } catch (StoreException e) {
            return readFailed(copies, e);
        }
        return copies.with(copies.status(), copies.detail() + "; sha256 " + sha256);
    }

    /**
     * A read that no copy could serve, as the file's verdict: a quick check looks only for the copies, so
     * its header read is the first to meet a rotten block, and a copy can go bad or away between the
     * copy check and a full check's read.
     */
    private static FileVerdict readFailed(FileVerdict copies, StoreException e) throws StoreException {
        FileVerdict.Status status = switch (e.code()) {
            case CORRUPT -> FileVerdict.Status.CORRUPT;
            case UNAVAILABLE -> FileVerdict.Status.MISSING;
            default -> throw e;
        };
        return copies.with(status, e.getMessage());
    }
}

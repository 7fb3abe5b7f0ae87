package io.weightstore.weights;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.checks.BlockChecksumDigest;
import io.weightstore.weights.checks.TensorCrcTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a local checkpoint directory into the store. The whole directory is validated before
 * anything is written; the manifest goes in as IMPORTING first and READY last, after every file is
 * sealed with its SHA-256, the digest of its block checksums and (for safetensors) the SHA-256 of
 * its tensor CRC table recorded. The manifest names who imported it as the master recorded the
 * writer of its first write, and every file must have been written by the same identity. An
 * interrupted import run again skips files this identity already stored with the same bytes.
 */
public final class CheckpointImporter {
    private static final Logger log = LoggerFactory.getLogger(CheckpointImporter.class);
    /** Nodes allocate in 4 KiB units, so a file takes its size rounded up. */
    private static final long SPACE_ALIGNMENT = 4096;

    private final Catalog catalog;
    private final StoreClient store;

    public CheckpointImporter(Catalog catalog) {
        this.catalog = catalog;
        this.store = catalog.store();
    }

    public ImportResult run(ImportRequest request, Progress progress) throws IOException {
        long start = System.nanoTime();
        CheckpointId id = request.checkpointId();
        if (request.modelId() == null || request.modelId().isBlank()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "a model id (ORG/NAME) is required");
        }
        CheckpointDirectory directory = validate(request.source());
        Room room = store.room();
        if (room.nodesUp() < request.replicas()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "replicas=" + request.replicas() + " needs "
                    + request.replicas() + " storage nodes up; the store has " + room.nodesUp());
        }
        requireRoom(id, directory, request, room);
        try (CatalogLock lock = CatalogLock.acquire(store, id, "import")) {
            Manifest previous = catalog.storedManifest(id).orElse(null);
            if (previous != null && previous.status() == CheckpointStatus.READY && !request.replace()) {
                throw new CheckpointException(CheckpointException.Code.ALREADY_EXISTS, "checkpoint " + id
                        + " is already READY; use --replace to import over it");
            }
            if (previous != null && previous.status() == CheckpointStatus.DELETING) {
                throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id
                        + " is being deleted; run delete again to finish it first");
            }
            Manifest initial = initialManifest(request, directory, previous);
            // Who imports is the master's word on who wrote the manifest, not anything this process claims.
            Manifest manifest = initial.withImportedBy(catalog.writeManifest(initial, lock.owner()).owner());
            List<String> sent = Collections.synchronizedList(new ArrayList<>());
            try {
                return upload(request, directory, manifest, lock.owner(), sent, progress, start);
            } catch (IOException | RuntimeException e) {
                if (lock.stillHeld()) {
                    freeWhatWasSent(sent, e);
                    markFailed(id, lock.owner(), e);
                }
                throw e;
            }
        }
    }

    /**
     * Refuses, before anything is written or evicted, a checkpoint the store cannot hold: every file
     * not stored yet, at every replica, against free space plus what eviction could free. A replace
     * may send again any file stored at the same size (its bytes may differ), and a file's old copy
     * is freed only once its new one is sealed: the largest of those, as many as go at once, need room
     * beside the old.
     */
    private void requireRoom(CheckpointId id, CheckpointDirectory directory, ImportRequest request, Room room) throws IOException {
        int replicas = request.replicas();
        long needed = 0;
        List<Long> sameSize = new ArrayList<>();
        for (CheckpointFile file : directory.files()) {
            String key = Catalog.filesPrefix(id) + file.path();
            long space = Math.ceilDiv(file.size(), SPACE_ALIGNMENT) * SPACE_ALIGNMENT * replicas;
            if (store.find(key).filter(o -> o.size() == file.size()).isEmpty()) {
                needed += space;
            } else {
                sameSize.add(space);
            }
        }
        if (request.replace()) {
            needed += sameSize.stream().sorted(Comparator.reverseOrder()).limit(request.parallelFiles()).mapToLong(Long::longValue).sum();
        }
        if (needed > room.available()) {
            throw new CheckpointException(CheckpointException.Code.NO_SPACE, "checkpoint " + id + " needs " + ByteSizes.format(needed)
                    + " (" + replicas + " replica" + (replicas == 1 ? "" : "s") + " of what is not stored yet"
                    + (request.replace() ? ", and of the largest files a replace has in flight at once beside their old copies" : "")
                    + "); the store has "
                    + ByteSizes.format(Math.max(0, room.capacity() - room.used())) + " free and " + ByteSizes.format(room.evictable())
                    + " that eviction could free, of " + ByteSizes.format(room.capacity()) + " on " + room.nodesUp()
                    + " nodes up; nothing was written");
        }
    }

    private static CheckpointDirectory validate(Path source) throws IOException {
        CheckpointDirectory directory;
        try {
            directory = CheckpointDirectory.read(source);
        } catch (SafetensorsFormatException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "invalid checkpoint " + source + ": " + e.getMessage(), e);
        } catch (NoSuchFileException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "no such directory: " + source, e);
        }
        if (directory.files().isEmpty()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "checkpoint directory " + source + " has no files");
        }
        return directory;
    }

    private static Manifest initialManifest(ImportRequest request, CheckpointDirectory directory, Manifest previous) {
        List<ManifestFile> files = new ArrayList<>();
        for (CheckpointFile file : directory.files()) {
            ManifestFile fresh = new ManifestFile(file.path(), file.size(), null, file.kind(),
                    file.header().map(h -> h.headerLength()).orElse(null), file.header().map(h -> h.tensors().size()).orElse(null));
            // Keep what an earlier attempt recorded: it lets this one skip the file if it is unchanged.
            files.add(previous == null ? fresh : previous.file(file.path()).filter(f -> f.size() == file.size())
                    .map(f -> fresh.stored(f.sha256(), f.checksumDigest(), f.tensorCrcsSha256())).orElse(fresh));
        }
        Instant now = Catalog.now();
        Instant created = previous != null && previous.status() != CheckpointStatus.READY ? previous.createdAt() : now;
        return new Manifest(Manifest.SCHEMA_VERSION, request.checkpointId(), request.modelId(),
                request.revision() == null ? "main" : request.revision(), request.source().toAbsolutePath().toString(),
                CheckpointStatus.IMPORTING, created, now, directory.totalBytes(), null, null, files);
    }

    private ImportResult upload(ImportRequest request, CheckpointDirectory directory, Manifest initial, LockOwner writer,
            List<String> sent, Progress progress, long start) throws IOException {
        progress.started(initial.totalBytes());
        ManifestUpdates updates = new ManifestUpdates(initial, writer);
        AtomicInteger skipped = new AtomicInteger();
        AtomicLong uploadedBytes = new AtomicLong();
        ExecutorService files = Executors.newFixedThreadPool(request.parallelFiles(),
                Thread.ofPlatform().daemon().name("import-file-", 0).factory());
        // One digest per file in flight; a file's SHA-256 is one sequential chain, so files are what runs in parallel.
        ExecutorService hashing = Executors.newFixedThreadPool(request.parallelFiles(),
                Thread.ofPlatform().daemon().name("import-hash-", 0).factory());
        try {
            List<Future<Void>> running = new ArrayList<>();
            for (StoredFile file : catalog.files(initial)) {
                Optional<SafetensorsHeader> header = directory.files().stream().filter(f -> f.path().equals(file.path()))
                        .findFirst().flatMap(CheckpointFile::header);
                running.add(files.submit(() -> {
                    FileImport run = new FileImport(request, initial.importedBy(), file, header, writer, hashing);
                    ManifestFile stored = run.store(directory.root().resolve(file.path()), sent, progress);
                    if (run.sent()) {
                        uploadedBytes.addAndGet(file.file().size());
                    } else {
                        skipped.incrementAndGet();
                    }
                    updates.recorded(stored);
                    return null;
                }));
            }
            for (Future<Void> future : running) {
                Futures.await(future);
            }
        } finally {
            files.shutdownNow();
            // A file's task may have started its put before the interrupt: the cleanup after a failure frees what was
            // sent, so it must not run while a put can still add to that list. The tasks wait for their digests, so
            // the hashing threads stop only after them.
            files.close();
            hashing.shutdownNow();
        }
        Manifest ready = updates.current().withStatus(CheckpointStatus.READY, Catalog.now(), null);
        catalog.writeManifest(ready, writer);
        removeFilesOfEarlierVersions(ready);
        int total = initial.files().size();
        return new ImportResult(ready, total - skipped.get(), skipped.get(), uploadedBytes.get(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * Stores one file as the identity {@code importer}, unless that identity already stored the same
     * bytes (a resumed import), and its tensor CRC table beside it; returns the file's manifest entry.
     */
    private final class FileImport {
        private final ImportRequest request;
        private final String importer;
        private final StoredFile stored;
        private final Optional<SafetensorsHeader> header;
        private final LockOwner writer;
        private final ExecutorService hashing;
        private boolean sent;

        FileImport(ImportRequest request, String importer, StoredFile stored, Optional<SafetensorsHeader> header, LockOwner writer,
                ExecutorService hashing) {
            this.request = request;
            this.importer = importer;
            this.stored = stored;
            this.header = header;
            this.writer = writer;
            this.hashing = hashing;
        }

        /** Whether the file's bytes were sent, rather than found stored already. */
        boolean sent() {
            return sent;
        }

        /**
         * Stores the file, and refuses it if it changed while it was read: its hash, its CRC table and the
         * bytes sent are each read at their own moment, and must all be of the same bytes.
         */
        ManifestFile store(Path path, List<String> sentKeys, Progress progress) throws IOException {
            FileTime opened = Files.getLastModifiedTime(path);
            ManifestFile result;
            try {
                result = storeMapped(path, sentKeys, progress);
            } catch (InternalError | CompletionException e) {
                // A mapped file that shrank under the import faults on the next read past its end, which the JDK
                // reports as an InternalError, here or in the thread that hashed or sent it.
                if (e instanceof CompletionException c && !(c.getCause() instanceof InternalError)) {
                    throw e;
                }
                throw new CheckpointException(CheckpointException.Code.INVALID, stored.file().path() + " changed during the import:"
                        + " it could not be read to the end of its " + stored.file().size() + " bytes (" + e.getMessage() + ")", e);
            }
            FileTime now = Files.getLastModifiedTime(path);
            if (!now.equals(opened)) {
                throw new CheckpointException(CheckpointException.Code.INVALID, stored.file().path() + " changed during the import:"
                        + " modified at " + now + ", after the import opened it (modified at " + opened + ")");
            }
            return result;
        }

        private ManifestFile storeMapped(Path path, List<String> sentKeys, Progress progress) throws IOException {
            ManifestFile file = stored.file();
            try (Arena arena = Arena.ofShared(); FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                if (channel.size() != file.size()) {
                    throw new CheckpointException(CheckpointException.Code.INVALID, file.path() + " changed during the import: "
                            + file.size() + " bytes when validated, " + channel.size() + " now");
                }
                MemorySegment bytes = file.size() == 0 ? MemorySegment.NULL
                        : channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena);
                Optional<String> storedDigest = storedAlready(file, bytes);
                if (storedDigest.isPresent()) {
                    progress.advanced(file.size());
                    return file.stored(file.sha256(), storedDigest.get(), crcTable(file, bytes, sentKeys));
                }
                // Hash and compute the CRC table while the upload sends the same mapped pages. On the import's own
                // threads: the common pool has one thread on two cores, and would hash the files one after another.
                CompletableFuture<FileDigests> digests = CompletableFuture.supplyAsync(() -> FileDigests.of(bytes, header), hashing);
                ObjectMeta object;
                try {
                    object = store.put(stored.key(), bytes, PutOptions.defaults().withReplicas(request.replicas())
                            .withReplace(true).withPin(true).withWriterUnderLock(writer.toString(), lockName()), progress);
                } catch (IOException | RuntimeException e) {
                    // The digests read the mapping: they finish before it is unmapped.
                    digests.exceptionally(failed -> null).join();
                    throw e;
                }
                sentKeys.add(stored.key());
                sent = true;
                requireOwnWrite(object);
                if (object.size() != file.size()) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + stored.key() + " has " + object.size()
                            + " bytes, source has " + file.size());
                }
                FileDigests computed = digests.join();
                return file.stored(computed.sha256(), BlockChecksumDigest.of(object), putTable(computed.tensorCrcs(), sentKeys));
            }
        }

        /**
         * The digest of the stored object's block checksums when this importer already stored these exact
         * bytes (an earlier run did): the SHA-256 an earlier run recorded is the local file's, and the
         * object's block checksums are those of the local bytes.
         */
        private Optional<String> storedAlready(ManifestFile file, MemorySegment bytes) throws IOException {
            Optional<ObjectMeta> object = stored.object().filter(o -> o.size() == file.size() && o.owner().equals(importer));
            if (file.sha256() == null || object.isEmpty()) {
                return Optional.empty();
            }
            String digest = BlockChecksumDigest.of(object.get());
            boolean same = digest.equals(BlockChecksumDigest.of(bytes, object.get().checksumBlockSize()))
                    && Sha256.of(bytes).equals(file.sha256());
            return same ? Optional.of(digest) : Optional.empty();
        }

        /** The SHA-256 of the file's CRC table, stored again unless this importer stored the same table before. */
        private String crcTable(ManifestFile file, MemorySegment bytes, List<String> sentKeys) throws IOException {
            if (header.isEmpty()) {
                return null;
            }
            if (file.tensorCrcsSha256() != null && store.find(stored.checksKey()).filter(o -> o.owner().equals(importer)).isPresent()
                    && Sha256.of(MemorySegment.ofArray(store.readAll(stored.checksKey()))).equals(file.tensorCrcsSha256())) {
                return file.tensorCrcsSha256();
            }
            return putTable(Optional.of(TensorCrcTable.compute(header.get(), bytes)), sentKeys);
        }

        private String putTable(Optional<TensorCrcTable> table, List<String> sentKeys) throws IOException {
            if (table.isEmpty()) {
                return null;
            }
            byte[] json = table.get().toJson();
            requireOwnWrite(store.put(stored.checksKey(), json, PutOptions.defaults().withReplicas(catalog.smallObjectReplicas())
                    .withReplace(true).withPin(true).withWriterUnderLock(writer.toString(), lockName())));
            sentKeys.add(stored.checksKey());
            return Sha256.of(MemorySegment.ofArray(json));
        }

        private String lockName() {
            return Catalog.lockName(request.checkpointId());
        }

        /** Every object of an import is written by who wrote its manifest; anything else would fail every load. */
        private void requireOwnWrite(ObjectMeta object) throws CheckpointException {
            if (!object.owner().equals(importer)) {
                throw new CheckpointException(CheckpointException.Code.INVALID, "the master recorded " + object.key()
                        + " as written by " + Owners.describe(object.owner()) + ", but the manifest of this import by "
                        + Owners.describe(importer) + "; did the credentials change during the import?");
            }
        }
    }

    /**
     * After a replace, the files (and CRC tables) of the version before that the new manifest does not
     * name: they would stay pinned, and listed under the checkpoint, until it is deleted. The import is
     * done by then, so what cannot be removed now (a reader of that version still reads it, the master
     * is out of reach) stays, with a warning, until the checkpoint is imported or deleted again.
     */
    private void removeFilesOfEarlierVersions(Manifest ready) {
        Set<String> named = new HashSet<>(List.of(Catalog.manifestKey(ready.checkpointId())));
        for (StoredFile file : catalog.files(ready)) {
            named.add(file.key());
            named.add(file.checksKey());
        }
        try {
            List<String> stale = store.list(Catalog.prefix(ready.checkpointId())).stream().map(ObjectMeta::key)
                    .filter(key -> !named.contains(key)).toList();
            if (!stale.isEmpty()) {
                store.removeAll(stale, false);
            }
        } catch (IOException e) {
            log.warn("checkpoint {} is READY; objects of its earlier version that it no longer names stay until it is imported or"
                    + " deleted again: {}", ready.checkpointId(), e.getMessage());
        }
    }

    /** A failed import gives back the space of the files and CRC tables this run wrote; the manifest stays, as FAILED. */
    private void freeWhatWasSent(List<String> sent, Exception cause) {
        try {
            store.removeAll(List.copyOf(sent), true);
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }

    private void markFailed(CheckpointId id, LockOwner writer, Exception cause) {
        // A put whose start was answered by a master that then died may be pending under this writer without
        // anyone knowing its id; it would hold its key until it expired, so a run again could not write it.
        try {
            store.abortPutsOf(writer.toString());
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
        try {
            catalog.storedManifest(id).ifPresent(m -> {
                try {
                    catalog.writeManifest(m.withStatus(CheckpointStatus.FAILED, Catalog.now(), String.valueOf(cause.getMessage())),
                            writer);
                } catch (IOException e) {
                    cause.addSuppressed(e);
                }
            });
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The manifest as files get recorded, rewritten in the store after each one so an interrupted
     * import leaves the hashes of what it finished.
     */
    private final class ManifestUpdates {
        private final LockOwner writer;
        private Manifest current;

        ManifestUpdates(Manifest initial, LockOwner writer) {
            this.current = initial;
            this.writer = writer;
        }

        synchronized void recorded(ManifestFile file) throws IOException {
            current = current.withFile(file, Catalog.now());
            catalog.writeManifest(current, writer);
        }

        synchronized Manifest current() {
            return current;
        }
    }
}

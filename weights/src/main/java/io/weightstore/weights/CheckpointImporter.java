package io.weightstore.weights;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts a local checkpoint directory into the store. The whole directory is validated before
 * anything is written; the manifest goes in as IMPORTING first and READY last, after every file is
 * sealed with its SHA-256 recorded. An interrupted import run again skips files already stored with
 * the same size and hash.
 */
public final class CheckpointImporter {
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
        requireRoom(id, directory, request.replicas(), room);
        try (CatalogLock lock = CatalogLock.acquire(store, id, "import")) {
            Manifest previous = catalog.manifest(id).orElse(null);
            if (previous != null && previous.status() == CheckpointStatus.READY && !request.replace()) {
                throw new CheckpointException(CheckpointException.Code.ALREADY_EXISTS, "checkpoint " + id
                        + " is already READY; use --replace to import over it");
            }
            if (previous != null && previous.status() == CheckpointStatus.DELETING) {
                throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id
                        + " is being deleted; run delete again to finish it first");
            }
            Manifest manifest = initialManifest(request, directory, previous);
            catalog.writeManifest(manifest, lock.owner());
            List<String> sent = Collections.synchronizedList(new ArrayList<>());
            try {
                return upload(request, directory, manifest, lock.owner(), sent, progress, start);
            } catch (IOException | RuntimeException e) {
                freeWhatWasSent(sent, e);
                markFailed(id, lock.owner(), e);
                throw e;
            }
        }
    }

    /**
     * Refuses, before anything is written or evicted, a checkpoint the store cannot hold: every file
     * not stored yet, at every replica, against free space plus what eviction could free.
     */
    private void requireRoom(CheckpointId id, CheckpointDirectory directory, int replicas, Room room) throws IOException {
        long needed = 0;
        for (CheckpointFile file : directory.files()) {
            String key = Catalog.filesPrefix(id) + file.path();
            if (store.find(key).filter(o -> o.size() == file.size()).isEmpty()) {
                needed += Math.ceilDiv(file.size(), SPACE_ALIGNMENT) * SPACE_ALIGNMENT * replicas;
            }
        }
        if (needed > room.available()) {
            throw new CheckpointException(CheckpointException.Code.NO_SPACE, "checkpoint " + id + " needs " + ByteSizes.format(needed)
                    + " (" + replicas + " replica" + (replicas == 1 ? "" : "s") + " of what is not stored yet); the store has "
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
            // Keep a hash recorded by an earlier attempt: it lets this one skip the file if it is unchanged.
            String earlierHash = previous == null ? null : previous.file(file.path())
                    .filter(f -> f.size() == file.size()).map(ManifestFile::sha256).orElse(null);
            files.add(new ManifestFile(file.path(), file.size(), earlierHash, file.kind(),
                    file.header().map(h -> h.headerLength()).orElse(null), file.header().map(h -> h.tensors().size()).orElse(null)));
        }
        Instant now = Catalog.now();
        Instant created = previous != null && previous.status() != CheckpointStatus.READY ? previous.createdAt() : now;
        return new Manifest(Manifest.SCHEMA_VERSION, request.checkpointId(), request.modelId(),
                request.revision() == null ? "main" : request.revision(), request.source().toAbsolutePath().toString(),
                CheckpointStatus.IMPORTING, created, now, directory.totalBytes(), null, files);
    }

    private ImportResult upload(ImportRequest request, CheckpointDirectory directory, Manifest initial, LockOwner writer,
            List<String> sent, Progress progress, long start) throws IOException {
        progress.started(initial.totalBytes());
        ManifestUpdates updates = new ManifestUpdates(initial, writer);
        AtomicInteger skipped = new AtomicInteger();
        AtomicLong uploadedBytes = new AtomicLong();
        ExecutorService files = Executors.newFixedThreadPool(request.parallelFiles(),
                Thread.ofPlatform().daemon().name("import-file-", 0).factory());
        try {
            List<Future<Void>> running = new ArrayList<>();
            for (StoredFile file : catalog.files(initial)) {
                running.add(files.submit(() -> {
                    Stored stored = storeFile(request, file, directory.root().resolve(file.path()), writer, progress);
                    if (stored.sent()) {
                        sent.add(file.key());
                        uploadedBytes.addAndGet(file.file().size());
                    } else {
                        skipped.incrementAndGet();
                    }
                    updates.recorded(file.file().withSha256(stored.sha256()));
                    return null;
                }));
            }
            for (Future<Void> future : running) {
                Futures.await(future);
            }
        } finally {
            files.shutdownNow();
        }
        Manifest ready = updates.current().withStatus(CheckpointStatus.READY, Catalog.now(), null);
        catalog.writeManifest(ready, writer);
        int total = initial.files().size();
        return new ImportResult(ready, total - skipped.get(), skipped.get(), uploadedBytes.get(), (System.nanoTime() - start) / 1e9);
    }

    /** What storing one file did: its SHA-256, and whether its bytes were sent or found stored already. */
    private record Stored(String sha256, boolean sent) {}

    private Stored storeFile(ImportRequest request, StoredFile stored, Path path, LockOwner writer, Progress progress)
            throws IOException {
        ManifestFile file = stored.file();
        try (Arena arena = Arena.ofShared(); FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            if (channel.size() != file.size()) {
                throw new CheckpointException(CheckpointException.Code.INVALID, file.path() + " changed during the import: "
                        + file.size() + " bytes when validated, " + channel.size() + " now");
            }
            MemorySegment bytes = file.size() == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena);
            if (file.sha256() != null && stored.object().filter(o -> o.size() == file.size()).isPresent()) {
                String hash = Sha256.of(bytes);
                if (hash.equals(file.sha256())) {
                    progress.advanced(file.size());
                    return new Stored(hash, false);
                }
            }
            // Hash on the way: the digest reads the same mapped pages the upload sends.
            CompletableFuture<String> hash = CompletableFuture.supplyAsync(() -> Sha256.of(bytes));
            ObjectMeta object = store.put(stored.key(), bytes, PutOptions.defaults().withReplicas(request.replicas())
                    .withReplace(true).withPin(true).withWriter(writer.toString()), progress);
            if (object.size() != file.size()) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + stored.key() + " has " + object.size()
                        + " bytes, source has " + file.size());
            }
            return new Stored(hash.join(), true);
        }
    }


    /** A failed import gives back the space of the files this run wrote; the manifest stays, as FAILED. */
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
            catalog.manifest(id).ifPresent(m -> {
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

package io.weightstore.weights;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.ExcludedFiles;
import io.weightstore.format.HubCacheSnapshot;
import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.SegmentRangeSource;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.ObjectKeys;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.checks.BlockChecksumDigest;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a local checkpoint directory into the store. The whole directory is validated before
 * anything is written; the manifest goes in as IMPORTING first and READY last, after every file is
 * sealed with its SHA-256, the digest of its block checksums and (for safetensors) the SHA-256 of
 * its tensor CRC table recorded. The manifest names who imported it as the master recorded the
 * writer of its first write, and every file must have been written by the same identity. An
 * interrupted import run again skips files this identity already stored with the same bytes.
 *
 * <p>A replace of a READY checkpoint is a new version beside it: what changed is written under the
 * new version, with its manifest at the replacement's key, while loaders go on reading the version
 * before, whole; one write of the manifest makes the new version visible, and only then are the
 * files it no longer names removed. A replace that fails leaves the version before as it was.
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

    /** A label the manifest keeps and every listing shows: one line of text, not blank. */
    private static void requireLabel(String what, String value) throws CheckpointException {
        if (value == null || value.isBlank()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, what + " is required");
        }
        if (value.codePoints().anyMatch(Character::isISOControl)) {
            throw new CheckpointException(CheckpointException.Code.INVALID, what + " must not hold control characters: '"
                    + value.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append) + "'");
        }
    }

    public ImportResult run(ImportRequest request, Progress progress) throws IOException {
        long start = System.nanoTime();
        CheckpointId id = request.checkpointId();
        requireLabel("a model id (ORG/NAME)", request.modelId());
        requireLabel("a revision", request.revision());
        // A replace given no patterns leaves out what the version it replaces left out, as it keeps that version's replicas.
        List<String> patterns = request.exclude().isPresent() ? request.exclude().get()
                : request.replace() ? readyExcluded(id) : List.of();
        CheckpointDirectory directory = validate(request.source(), ExcludedFiles.of(patterns));
        requireStorableNames(request.checkpointId(), directory);
        // Opened before anything is written: a source that cannot be opened so, or is no longer the one read, leaves nothing.
        try (SourceTree tree = SourceTree.open(directory.fileRoots())) {
            return run(request, patterns, directory, tree, progress, start);
        }
    }

    private ImportResult run(ImportRequest request, List<String> patterns, CheckpointDirectory directory, SourceTree tree,
            Progress progress, long start) throws IOException {
        CheckpointId id = request.checkpointId();
        Room room = store.room();
        try (CatalogLock lock = CatalogLock.acquire(store, id, "import")) {
            Manifest live = catalog.storedManifest(id).orElse(null);
            if (live != null && live.status() == CheckpointStatus.READY && !request.replace()) {
                throw new CheckpointException(CheckpointException.Code.ALREADY_EXISTS, "checkpoint " + id
                        + " is already READY; use --replace to import over it");
            }
            if (live != null && live.status() == CheckpointStatus.DELETING) {
                throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id
                        + " is being deleted; run delete again to finish it first");
            }
            ManifestSlot slot = new ManifestSlot(live != null && live.status() == CheckpointStatus.READY);
            requireExclusionAsRead(request, patterns, slot.replacement() ? live.excluded() : List.of());
            CopyCount copies = CopyCount.forImport(request, slot.replacement() ? Optional.of(live) : Optional.empty(), catalog);
            if (room.nodesUp() < copies.replicas()) {
                throw new CheckpointException(CheckpointException.Code.TOO_FEW_NODES, "replicas=" + copies.replicas()
                        + (request.replicas().isEmpty() ? " (the count of the version it replaces)" : "") + " needs "
                        + copies.replicas() + " storage nodes up; the store has " + room.nodesUp());
            }
            Manifest previous = live;
            int version = live == null ? 0 : live.version();
            if (slot.replacement()) {
                // A replace that stopped goes on where it was.
                Optional<Manifest> unfinished = unfinishedReplacement(live);
                previous = unfinished.orElse(live);
                version = unfinished.map(Manifest::version).orElse(live.version() + 1);
            }
            requireRoom(id, directory, request.columnLayouts(), copies.replicas(), room, previous, version);
            Manifest initial = initialManifest(request, directory, patterns, previous, version);
            // Who imports is the master's word on who wrote the manifest, not anything this process claims.
            Manifest manifest = initial.withImportedBy(slot.write(initial, lock.owner()).owner());
            List<String> sent = Collections.synchronizedList(new ArrayList<>());
            ImportResult imported;
            try {
                imported = upload(request, copies, directory, tree, manifest, slot, lock.owner(), sent, progress, start);
            } catch (SwitchUnsettled e) {
                throw new CheckpointException(CheckpointException.Code.NOT_READY, e.getMessage(), e.getCause());
            } catch (IOException | RuntimeException | Error e) {
                // An Error too (out of memory on a huge header, say): left as it was, the checkpoint would read IMPORTING.
                if (lock.stillHeld()) {
                    freeWhatWasSent(id, sent, lock.owner(), e);
                    markFailed(id, slot, lock.owner(), e);
                }
                throw e;
            }
            // READY from here on: nothing that follows, an Error included, may free the files its manifest names or mark it failed.
            removeFilesOfEarlierVersions(imported.manifest(), slot, lock.owner());
            return imported.took((System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * The replace of {@code live} that stopped before it was READY, if any. One whose manifest cannot be
     * read (junk, a newer schema) is written over: its keys are of a version the live manifest never
     * names, and keeping it would refuse every replace until the checkpoint is deleted.
     */
    private Optional<Manifest> unfinishedReplacement(Manifest live) throws IOException {
        try {
            return catalog.unfinishedReplacement(live);
        } catch (CheckpointException e) {
            log.warn("checkpoint {}: the manifest of an earlier replace cannot be read ({}); this replace starts over", live.checkpointId(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    /** A switch to READY whose outcome is unknown: what this run sent may be what loaders read, so nothing is freed. */
    private static final class SwitchUnsettled extends IOException {
        SwitchUnsettled(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Where an import keeps its manifest while it runs: the checkpoint's own, or for a replace the replacement's. */
    private final class ManifestSlot {
        private final boolean replacement;

        ManifestSlot(boolean replacement) {
            this.replacement = replacement;
        }

        boolean replacement() {
            return replacement;
        }

        Optional<Manifest> read(CheckpointId id) throws IOException {
            return replacement ? catalog.storedReplacement(id) : catalog.storedManifest(id);
        }

        ObjectMeta write(Manifest manifest, LockOwner writer) throws IOException {
            return replacement ? catalog.writeReplacement(manifest, writer) : catalog.writeManifest(manifest, writer);
        }
    }

    /**
     * Refuses, before anything is written or evicted, a checkpoint the store surely cannot hold: every
     * file that version {@code version} has not stored yet at its size, at every replica, against free
     * space plus what eviction could free. A file that {@code previous} records at the same size from
     * an earlier version is not counted: it is kept if its bytes did not change, which is known only
     * once it is read. If they did, the replace may run out of room on the way, and then fails as any
     * replace does, the version before untouched; counting them all would refuse a new config.json for
     * a checkpoint larger than the free space.
     */
    private void requireRoom(CheckpointId id, CheckpointDirectory directory, ColumnLayoutPlan layouts, int replicas, Room room,
            Manifest previous, int version) throws IOException {
        // What an earlier run of this version stored already, in one listing rather than a call to the master per file.
        Map<String, Long> stored = new HashMap<>();
        store.list(Catalog.fileKey(id, version, "")).forEach(object -> stored.put(object.key(), object.size()));
        long needed = 0;
        for (CheckpointFile file : directory.files()) {
            boolean keptIfUnchanged = previous != null && previous.file(file.path())
                    .filter(f -> f.version() < version && f.size() == file.size() && f.sha256() != null).isPresent();
            if (!keptIfUnchanged && !Long.valueOf(file.size()).equals(stored.get(Catalog.fileKey(id, version, file.path())))) {
                needed += space(file.size(), replicas);
            }
            // Each layout asked for but one an earlier version or run recorded of a file that may be kept: a file that is
            // written again gets its layouts written again.
            boolean mayKeepLayouts = previous != null && (keptIfUnchanged || stored.containsKey(Catalog.fileKey(id, version, file.path())));
            long layoutBytes = file.header().map(layouts::mostBytes).orElse(0L);
            for (int worldSize : layouts.worldSizes()) {
                if (!(mayKeepLayouts && previous.file(file.path()).flatMap(f -> f.columnLayout(worldSize)).isPresent())) {
                    needed += space(layoutBytes, replicas);
                }
            }
        }
        if (needed > room.available()) {
            throw new CheckpointException(CheckpointException.Code.NO_SPACE, "checkpoint " + id + " needs " + ByteSizes.format(needed)
                    + " (" + replicas + " replica" + (replicas == 1 ? "" : "s") + " of what is not stored yet"
                    + (version > 0 ? ", beside the version before, which stays whole until this one is READY" : "")
                    + "); the store has "
                    + ByteSizes.format(Math.max(0, room.capacity() - room.used())) + " free"
                    + (room.held().forCaller() > 0 ? ", " + ByteSizes.format(room.held().forCaller()) + " of this writer's own held back"
                            + " from its earlier puts" : "")
                    + " and " + ByteSizes.format(room.evictable()) + " that eviction could free, of " + ByteSizes.format(room.capacity())
                    + " on " + room.nodesUp() + " nodes up" + heldForOthers(room.held()) + "; nothing was written");
        }
    }

    /** The room {@code bytes} take at {@code replicas} copies, nodes allocating in whole units. */
    private static long space(long bytes, int replicas) {
        return Math.ceilDiv(bytes, SPACE_ALIGNMENT) * SPACE_ALIGNMENT * replicas;
    }

    /** Room other writers' grants still reach: it comes back on its own, so say when. */
    private static String heldForOthers(Room.Held held) {
        if (held.forOthers() == 0) {
            return "";
        }
        return " (" + ByteSizes.format(held.forOthers()) + " more was freed recently and is held back until the write grants that"
                + " reach it expire" + held.othersUntil().map(until -> ", by " + until.truncatedTo(ChronoUnit.SECONDS)).orElse("")
                + ")";
    }

    private static CheckpointDirectory validate(Path source, ExcludedFiles exclusion) throws IOException {
        CheckpointDirectory directory;
        try {
            directory = CheckpointDirectory.read(source, exclusion);
        } catch (SafetensorsFormatException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "invalid checkpoint " + source + ": " + e.getMessage(), e);
        } catch (NoSuchFileException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, missing(source, e), e);
        }
        if (directory.files().isEmpty()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "checkpoint directory " + source + " has no files"
                    + (directory.excluded().isEmpty() ? "" : " but the " + directory.excluded().size() + " excluded by "
                            + exclusion.patterns()));
        }
        return directory;
    }

    /** What a file missing while the source was read means: no source at all, or a file of it gone since it was listed. */
    static String missing(Path source, NoSuchFileException e) {
        if (e.getFile() == null || Path.of(e.getFile()).equals(source)) {
            return "no such directory: " + source;
        }
        return "file " + e.getFile() + " vanished while checkpoint " + source + " was read (is something still writing or"
                + " moving its files?); nothing was written";
    }

    /**
     * Each file is stored under a key made of its name: a name no key may hold (a control character,
     * or too long) is refused here, before anything is written, rather than by the store mid-import.
     */
    private static void requireStorableNames(CheckpointId id, CheckpointDirectory directory) throws CheckpointException {
        for (CheckpointFile file : directory.files()) {
            try {
                // The longest keys the file may get: its tensor CRC table's and its own, under any version.
                ObjectKeys.validate(Catalog.checksKey(id, Integer.MAX_VALUE, file.path()));
                ObjectKeys.validate(Catalog.fileKey(id, Integer.MAX_VALUE, file.path()));
                ObjectKeys.validate(Catalog.columnsKey(id, Integer.MAX_VALUE, TensorCrcs.WORLD_SIZES.getLast(), file.path()));
            } catch (StoreException e) {
                throw new CheckpointException(CheckpointException.Code.INVALID, "file name " + file.path().replaceAll("\\p{Cntrl}", "?")
                        + " cannot be stored: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The patterns a request given none took, before the lock, are still the checkpoint's now that it holds the lock: a
     * replace or a delete that finished in between would otherwise have this import leave out what no version now does.
     */
    private static void requireExclusionAsRead(ImportRequest request, List<String> taken, List<String> now) throws CheckpointException {
        if (request.exclude().isEmpty() && !taken.equals(now)) {
            throw new CheckpointException(CheckpointException.Code.CHANGED, "checkpoint " + request.checkpointId() + " changed while"
                    + " its source was read: its files are now left out by " + now + ", not " + taken + "; run the import again");
        }
    }

    /** The patterns the READY version of checkpoint {@code id} left files out by; none when there is no such version. */
    private List<String> readyExcluded(CheckpointId id) throws IOException {
        return catalog.storedManifest(id).filter(m -> m.status() == CheckpointStatus.READY).map(Manifest::excluded).orElse(List.of());
    }

    private static Manifest initialManifest(ImportRequest request, CheckpointDirectory directory, List<String> excluded, Manifest previous,
            int version) {
        List<ManifestFile> files = new ArrayList<>();
        for (CheckpointFile file : directory.files()) {
            ManifestFile fresh = new ManifestFile(file.path(), file.size(), null, file.kind(),
                    file.header().map(h -> h.headerLength()).orElse(null), file.header().map(h -> h.tensors().size()).orElse(null));
            // Keep what an earlier attempt recorded: it lets this one skip the file if it is unchanged.
            files.add(previous == null ? fresh : previous.file(file.path()).filter(f -> f.size() == file.size())
                    .map(f -> fresh.stored(f.version(), f.sha256(), f.checksumDigest(), f.tensorCrcsSha256())
                            .withColumnLayouts(f.columnLayouts())).orElse(fresh));
        }
        Instant now = Catalog.now();
        Instant created = previous != null && previous.status() != CheckpointStatus.READY ? previous.createdAt() : now;
        return new Manifest(Manifest.SCHEMA_VERSION, request.checkpointId(), request.modelId(),
                request.revision() == null ? "main" : request.revision(), request.source().toAbsolutePath().toString(),
                CheckpointStatus.IMPORTING, created, now, directory.totalBytes(), null, null, version, files, excluded);
    }

    /** Sends every file, read from {@code tree}, which must stay open until this returns, and switches the checkpoint to READY. */
    private ImportResult upload(ImportRequest request, CopyCount copies, CheckpointDirectory directory, SourceTree tree,
            Manifest initial, ManifestSlot slot, LockOwner writer, List<String> sent, Progress progress, long start) throws IOException {
        // A file's layouts count as their most: each file advances by that much once its layouts are stored or kept.
        progress.started(initial.totalBytes() + directory.files().stream().mapToLong(f -> layoutProgress(request, f.header())).sum());
        ManifestUpdates updates = new ManifestUpdates(initial, slot, writer);
        AtomicInteger skipped = new AtomicInteger();
        AtomicLong uploadedBytes = new AtomicLong();
        ExecutorService files = Executors.newFixedThreadPool(request.parallelFiles(),
                Thread.ofPlatform().daemon().name("import-file-", 0).factory());
        // One digest per file in flight; a file's SHA-256 is one sequential chain, so files are what runs in parallel.
        ExecutorService hashing = Executors.newFixedThreadPool(request.parallelFiles(),
                Thread.ofPlatform().daemon().name("import-hash-", 0).factory());
        try {
            List<Future<Void>> running = new ArrayList<>();
            Map<String, CheckpointFile> sources = directory.files().stream().collect(Collectors.toMap(CheckpointFile::path, f -> f));
            for (StoredFile file : catalog.files(initial)) {
                CheckpointFile source = sources.get(file.path());
                Optional<String> gitBlob = directory.namedGitBlob(source);
                running.add(files.submit(() -> {
                    FileImport run = new FileImport(request, copies, initial, file, source.header(), gitBlob.isPresent(), writer, hashing);
                    ManifestFile stored = run.store(tree, source.location(), sent, progress);
                    requireNamedDigest(directory, source, "SHA-256", directory.namedSha256(source), stored.sha256());
                    requireNamedDigest(directory, source, "Git blob id", gitBlob, run.gitBlobId());
                    if (run.sent()) {
                        uploadedBytes.addAndGet(file.file().size());
                    } else {
                        skipped.incrementAndGet();
                    }
                    uploadedBytes.addAndGet(run.layoutBytesSent());
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
        switchTo(ready, writer);
        int total = initial.files().size();
        return new ImportResult(ready, total - skipped.get(), skipped.get(), uploadedBytes.get(), directory.excluded(),
                (System.nanoTime() - start) / 1e9);
    }

    /**
     * A hub cache blob named by a digest (a SHA-256, or a small file's Git blob id) must hold bytes of that digest: else the
     * download is corrupt, or was altered.
     */
    private static void requireNamedDigest(CheckpointDirectory directory, CheckpointFile source, String digest, Optional<String> named,
            String computed) throws CheckpointException {
        if (named.isPresent() && !named.get().equals(computed)) {
            HubCacheSnapshot hub = directory.hubSnapshot().orElseThrow();
            throw new CheckpointException(CheckpointException.Code.CORRUPT, source.path() + " is corrupt: its blob " + source.location()
                    + " is named by the " + digest + " the hub gave it, but its bytes hash to " + computed + "; download it again"
                    + " (hf download " + hub.modelId() + " " + source.path() + " --revision " + hub.commit() + " --cache-dir "
                    + hub.cache() + " --force-download), or, if it was changed on purpose, import a plain copy of the snapshot (cp -rL "
                    + directory.root() + " DIR), which records no hub commit");
        }
    }

    /** What a file of {@code header} counts toward an import's progress for its column layouts: the most they may take. */
    private static long layoutProgress(ImportRequest request, Optional<SafetensorsHeader> header) {
        return header.map(h -> request.columnLayouts().mostBytes(h) * request.columnLayouts().worldSizes().size()).orElse(0L);
    }

    /**
     * The switch: one write of the checkpoint's manifest as READY. A write whose answer was lost (the
     * master went away during it) may have taken effect, and then the files this run sent are the ones
     * loaders read, which the clean-up after a failure would free: the manifest the store has now says
     * which it was, and when it cannot be read either, the import fails without freeing anything.
     */
    private void switchTo(Manifest ready, LockOwner writer) throws IOException {
        try {
            catalog.writeManifest(ready, writer);
        } catch (IOException | RuntimeException e) {
            Optional<Manifest> now;
            try {
                now = catalog.storedManifest(ready.checkpointId());
            } catch (IOException unreadable) {
                e.addSuppressed(unreadable);
                throw new SwitchUnsettled("whether checkpoint " + ready.checkpointId() + " is READY as version " + ready.version()
                        + " is unknown: its manifest was being written when " + e.getMessage() + ", and cannot be read now ("
                        + unreadable.getMessage() + "); run the same import again: it finishes the switch, or says the checkpoint is"
                        + " already READY", e);
            }
            if (now.filter(ready::equals).isEmpty()) {
                throw e;
            }
            log.warn("checkpoint {}: the answer to its READY manifest was lost ({}), but the store has it", ready.checkpointId(),
                    e.getMessage());
        }
    }

    /**
     * Stores one file as the identity {@code importer}, unless that identity already stored the same
     * bytes (a resumed import), and its tensor CRC table beside it; returns the file's manifest entry.
     */
    private final class FileImport {
        private final ImportRequest request;
        private final CopyCount copies;
        private final String importer;
        private final Manifest manifest;
        /** The file as an earlier version, or an earlier run of this one, stored it, if one did. */
        private final StoredFile stored;
        private final int version;
        private final String key;
        private final String checksKey;
        private final Optional<SafetensorsHeader> header;
        private final boolean gitBlobNamed;
        private final LockOwner writer;
        private final ExecutorService hashing;
        private boolean sent;
        private long layoutBytesSent;
        private String gitBlobId;

        /**
         * @param gitBlobNamed the file's source is a hub cache blob named by its Git blob id: compute that of the bytes read
         */
        FileImport(ImportRequest request, CopyCount copies, Manifest manifest, StoredFile stored, Optional<SafetensorsHeader> header,
                boolean gitBlobNamed, LockOwner writer, ExecutorService hashing) {
            this.request = request;
            this.copies = copies;
            this.importer = manifest.importedBy();
            this.manifest = manifest;
            this.stored = stored;
            this.version = manifest.version();
            this.key = Catalog.fileKey(manifest.checkpointId(), version, stored.path());
            this.checksKey = Catalog.checksKey(manifest.checkpointId(), version, stored.path());
            this.header = header;
            this.gitBlobNamed = gitBlobNamed;
            this.writer = writer;
            this.hashing = hashing;
        }

        /** The Git blob id of the bytes stored, when the file's source is named by one; else null. */
        String gitBlobId() {
            return gitBlobId;
        }

        /** Whether the file's bytes were sent, rather than found stored already. */
        boolean sent() {
            return sent;
        }

        /** Bytes of the column layouts this run wrote for the file (none of those it kept). */
        long layoutBytesSent() {
            return layoutBytesSent;
        }

        /**
         * Stores the file, and refuses it if it changed while it was read: its hash, its CRC table and the
         * bytes sent are each read at their own moment, and must all be of the same bytes.
         */
        ManifestFile store(SourceTree tree, Path path, List<String> sentKeys, Progress progress) throws IOException {
            String name = stored.file().path();
            SourceTree.Opened file;
            try {
                file = tree.open(name, path);
            } catch (NoSuchFileException | NotDirectoryException e) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, name + " changed during the import: "
                        + (e instanceof NoSuchFileException ? "it is gone (" : "a directory on its way is no longer one (") + e.getFile()
                        + ")", e);
            }
            FileTime opened = file.attributes().lastModifiedTime();
            ManifestFile result;
            try (FileChannel channel = file.channel()) {
                result = readAndStore(channel, sentKeys, progress);
            } catch (InternalError | CompletionException e) {
                if (e instanceof CompletionException c && c.getCause() instanceof UncheckedIOException unchecked) {
                    throw changedOr(tree, path, opened, unchecked.getCause());
                }
                // A mapped file that shrank under the import faults on the next read past its end, which the JDK
                // reports as an InternalError: here, where the header is checked and a file stored already is hashed.
                if (e instanceof CompletionException c && !(c.getCause() instanceof InternalError)) {
                    throw e;
                }
                throw new CheckpointException(CheckpointException.Code.CHANGED, stored.file().path() + " changed during the import:"
                        + " it could not be read to the end of its " + stored.file().size() + " bytes (" + e.getMessage() + ")", e);
            } catch (IOException e) {
                // A file that shrank under a read ends it early: the put or the hash fails, on what is a change of the file.
                throw changedOr(tree, path, opened, e);
            }
            FileTime now = tree.attributes(name, path).lastModifiedTime();
            if (!now.equals(opened)) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, stored.file().path() + " changed during the import:"
                        + " modified at " + now + ", after the import opened it (modified at " + opened + ")");
            }
            return result;
        }

        /** {@code failure}, or CHANGED with it as the cause when the file is no longer as the import opened it. */
        private IOException changedOr(SourceTree tree, Path path, FileTime opened, IOException failure) {
            if (failure instanceof CheckpointException c && c.code() == CheckpointException.Code.CHANGED) {
                return failure;
            }
            try {
                BasicFileAttributes now = tree.attributes(stored.file().path(), path);
                if (now.size() == stored.file().size() && now.lastModifiedTime().equals(opened)) {
                    return failure;
                }
            } catch (IOException gone) {
                failure.addSuppressed(gone);
            }
            return new CheckpointException(CheckpointException.Code.CHANGED, stored.file().path() + " changed during the import ("
                    + failure.getMessage() + ")", failure);
        }

        /**
         * The CRC table and the manifest's entry are made from the header read when the directory was
         * validated, which may be long before this file's turn: one rewritten meanwhile at the same size
         * (another revision moved into place, tensors reordered) would be stored with a table of the
         * other header's tensors, and every load of it would fail its checks.
         */
        private void requireHeaderAsValidated(ManifestFile file, MemorySegment bytes) throws IOException {
            if (header.isEmpty()) {
                return;
            }
            SafetensorsHeader now;
            try {
                now = SafetensorsHeaderParser.read(new SegmentRangeSource(bytes));
            } catch (SafetensorsFormatException | EOFException e) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, file.path() + " changed during the import: its"
                        + " header no longer reads (" + e.getMessage() + ")", e);
            }
            if (!now.equals(header.get())) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, file.path() + " changed during the import: its"
                        + " header is not the one the import validated");
            }
        }

        private ManifestFile readAndStore(FileChannel channel, List<String> sentKeys, Progress progress) throws IOException {
            ManifestFile file = stored.file();
            try (Arena arena = Arena.ofShared()) {
                if (channel.size() != file.size()) {
                    throw new CheckpointException(CheckpointException.Code.CHANGED, file.path() + " changed during the import: "
                            + file.size() + " bytes when validated, " + channel.size() + " now");
                }
                MemorySegment bytes = file.size() == 0 ? MemorySegment.NULL
                        : channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena);
                requireHeaderAsValidated(file, bytes);
                if (gitBlobNamed) {
                    // Small files only (the hub keeps larger ones in LFS): hashed once more, from the mapping, before they are sent.
                    gitBlobId = GitBlobId.of(bytes);
                }
                Optional<ManifestFile> unchanged = storedAlready(file, bytes);
                if (unchanged.isPresent()) {
                    progress.advanced(file.size());
                    ManifestFile kept = unchanged.get();
                    ManifestFile entry = request.columnLayouts().worldSizes().isEmpty() ? kept.withColumnLayouts(List.of())
                            : withLayouts(kept, bytes, stored.tensorCrcs(), sentKeys);
                    progress.advanced(layoutProgress(request, header));
                    return entry;
                }
                // Hash and compute the CRC table while the upload sends the same bytes. On the import's own threads: the
                // common pool has one thread on two cores, and would hash the files one after another. Both read the file
                // into buffers of their own rather than walk the mapping: on a VM, faulting mapped pages in cost the walk
                // a third of its time, and a write from them more than the write.
                CompletableFuture<FileDigests> digests = CompletableFuture.supplyAsync(() -> {
                    try {
                        return FileDigests.of(channel, file.size(), header);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, hashing);
                ObjectMeta object;
                try {
                    // Its bytes only: the run's progress counts toward the whole checkpoint, which a put's own total would replace.
                    object = store.put(key, channel, file.size(), PutOptions.defaults().withReplicas(copies.replicas())
                            .withAutoReplicas(copies.auto()).withReplace(true).withPin(true)
                            .withWriterUnderLock(writer.toString(), lockName()), progress::advanced);
                } catch (IOException | RuntimeException e) {
                    // The digests read the channel: they finish before it is closed.
                    digests.exceptionally(failed -> null).join();
                    throw e;
                }
                sentKeys.add(key);
                sent = true;
                requireOwnWrite(object);
                if (object.size() != file.size()) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + key + " has " + object.size()
                            + " bytes, source has " + file.size());
                }
                FileDigests computed = digests.join();
                ManifestFile entry = file.stored(version, computed.sha256(), BlockChecksumDigest.of(object),
                        putTable(computed.tensorCrcs(), sentKeys)).withColumnLayouts(List.of());
                ManifestFile laidOut = withLayouts(entry, bytes, computed.tensorCrcs(), sentKeys);
                progress.advanced(layoutProgress(request, header));
                return laidOut;
            }
        }

        /**
         * {@code file} with the column layouts the request asks for: each one it has already, of the tensors the request's
         * plan lays out and stored as recorded, is kept; the others are written now, from {@code bytes}, the file's.
         */
        private ManifestFile withLayouts(ManifestFile file, MemorySegment bytes, Optional<TensorCrcTable> table, List<String> sentKeys)
                throws IOException {
            ColumnLayoutPlan plan = request.columnLayouts();
            if (header.isEmpty() || table.isEmpty()) {
                return file.withColumnLayouts(List.of());
            }
            List<ColumnLayout> layouts = new ArrayList<>();
            for (int worldSize : plan.worldSizes()) {
                List<TensorInfo> tensors = plan.tensors(header.get(), table.get(), worldSize);
                if (tensors.isEmpty()) {
                    continue;
                }
                List<String> names = tensors.stream().map(TensorInfo::name).toList();
                Optional<ColumnLayout> kept = file.columnLayout(worldSize).filter(l -> l.tensors().equals(names));
                if (kept.isPresent() && layoutStored(file, kept.get())) {
                    layouts.add(kept.get());
                } else {
                    layouts.add(putLayout(file, bytes, tensors, worldSize, sentKeys));
                }
            }
            return file.withColumnLayouts(layouts);
        }

        /** Whether {@code layout} is stored as the manifest records it, by this importer. */
        private boolean layoutStored(ManifestFile file, ColumnLayout layout) throws IOException {
            StoredFile entry = catalog.file(manifest, file);
            Optional<ObjectMeta> object = store.find(entry.columnsKey(layout));
            if (object.isEmpty()) {
                return false;
            }
            try {
                entry.requireLayoutMatches(layout, object.get());
                return true;
            } catch (CheckpointException e) {
                return false;
            }
        }

        private ColumnLayout putLayout(ManifestFile file, MemorySegment bytes, List<TensorInfo> tensors, int worldSize,
                List<String> sentKeys) throws IOException {
            String columnsKey = Catalog.columnsKey(request.checkpointId(), version, worldSize, file.path());
            ColumnLayoutBytes layout = new ColumnLayoutBytes(bytes, header.orElseThrow().dataStart(), tensors, worldSize);
            // Hashed in order beside the put, which gathers its slices in parallel.
            CompletableFuture<String> sha256 = CompletableFuture.supplyAsync(layout::sha256, hashing);
            try {
                ObjectMeta put = store.put(columnsKey, layout, layout.size(), PutOptions.defaults().withReplicas(copies.replicas())
                        .withAutoReplicas(copies.auto()).withReplace(true).withPin(true)
                        .withWriterUnderLock(writer.toString(), lockName()), Progress.NONE);
                sentKeys.add(columnsKey);
                layoutBytesSent += layout.size();
                requireOwnWrite(put);
                return new ColumnLayout(worldSize, tensors.stream().map(TensorInfo::name).toList(), layout.size(), sha256.join(),
                        BlockChecksumDigest.of(put), version);
            } finally {
                // The hash reads the file's mapping, which is unmapped once this returns, whatever went wrong.
                sha256.exceptionally(failed -> null).join();
            }
        }

        /**
         * The file's entry, kept where it is stored, when this importer already stored these exact bytes
         * and their CRC table (an earlier run, or the version before, did): the SHA-256 recorded then is
         * the local file's, the object's block checksums are those of the local bytes, and the table is
         * the one recorded.
         */
        private Optional<ManifestFile> storedAlready(ManifestFile file, MemorySegment bytes) throws IOException {
            Optional<ObjectMeta> object = stored.object().filter(o -> o.size() == file.size() && o.owner().equals(importer));
            if (file.sha256() == null || object.isEmpty()) {
                return Optional.empty();
            }
            String digest = BlockChecksumDigest.of(object.get());
            boolean same = digest.equals(BlockChecksumDigest.of(bytes, object.get().checksumBlockSize()))
                    && Sha256.of(bytes).equals(file.sha256()) && tableStored(file);
            return same ? Optional.of(file.stored(file.version(), file.sha256(), digest, file.tensorCrcsSha256())) : Optional.empty();
        }

        /** Whether the CRC table the entry records is stored beside the file, by this importer; true for a file without one. */
        private boolean tableStored(ManifestFile file) throws IOException {
            if (header.isEmpty()) {
                return true;
            }
            return file.tensorCrcsSha256() != null && store.find(stored.checksKey()).filter(o -> o.owner().equals(importer)).isPresent()
                    && Sha256.of(MemorySegment.ofArray(store.readAll(stored.checksKey()))).equals(file.tensorCrcsSha256());
        }

        private String putTable(Optional<TensorCrcTable> table, List<String> sentKeys) throws IOException {
            if (table.isEmpty()) {
                return null;
            }
            byte[] json = table.get().toJson();
            ObjectMeta put = catalog.putSmall(checksKey, json, PutOptions.defaults().withReplace(true).withPin(true)
                    .withWriterUnderLock(writer.toString(), lockName()));
            sentKeys.add(checksKey);
            requireOwnWrite(put);
            return Sha256.of(MemorySegment.ofArray(json));
        }

        private String lockName() {
            return Catalog.lockName(request.checkpointId());
        }

        /** Every object of an import is written by who wrote its manifest; anything else would fail every load. */
        private void requireOwnWrite(ObjectMeta object) throws CheckpointException {
            if (!object.owner().equals(importer)) {
                throw new CheckpointException(CheckpointException.Code.UNTRUSTED, "the master recorded " + object.key()
                        + " as written by " + Owners.describe(object.owner()) + ", but the manifest of this import by "
                        + Owners.describe(importer) + "; did the credentials change during the import?");
            }
        }
    }

    /**
     * After a replace, the replacement's manifest, then the files (and CRC tables) of earlier versions
     * that the new manifest does not name: they would stay pinned, and listed under the checkpoint,
     * until it is deleted. The import is done by then, so what cannot be removed now (a reader of the
     * version before still reads it, the master is out of reach) stays, with a warning, until it is
     * pruned, or the checkpoint is imported or deleted again.
     */
    private void removeFilesOfEarlierVersions(Manifest ready, ManifestSlot slot, LockOwner writer) {
        if (slot.replacement()) {
            try {
                store.removeAllUnderLock(List.of(Catalog.replacementKey(ready.checkpointId())), true, writer.toString(),
                        Catalog.lockName(ready.checkpointId()));
            } catch (StoreException | RuntimeException e) {
                log.warn("checkpoint {} is READY; the manifest of its replacement stays until it is imported or deleted again: {}",
                        ready.checkpointId(), e.getMessage());
            }
        }
        try {
            catalog.removeLeftovers(ready, false, writer);
        } catch (IOException | RuntimeException e) {
            log.warn("checkpoint {} is READY; files of its earlier versions that it no longer names stay until 'model prune {}',"
                    + " or until it is imported or deleted again: {}", ready.checkpointId(), ready.checkpointId(), e.getMessage());
        }
    }

    /**
     * A failed import gives back the space of the files and CRC tables this run wrote; its manifest stays, as FAILED (for a
     * replace, the replacement's: the version before is untouched).
     */
    private void freeWhatWasSent(CheckpointId id, List<String> sent, LockOwner writer, Throwable cause) {
        try {
            // Under the lock, as the puts were: a run paused past it must not free what the next holder wrote since.
            store.removeAllUnderLock(List.copyOf(sent), true, writer.toString(), Catalog.lockName(id));
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }

    private void markFailed(CheckpointId id, ManifestSlot slot, LockOwner writer, Throwable cause) {
        // A put whose start was answered by a master that then died may be pending under this writer without
        // anyone knowing its id; it would hold its key until it expired, so a run again could not write it.
        try {
            store.abortPutsOf(writer.toString());
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
        try {
            slot.read(id).ifPresent(m -> {
                try {
                    slot.write(m.withStatus(CheckpointStatus.FAILED, Catalog.now(), String.valueOf(cause.getMessage())), writer);
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
        private final ManifestSlot slot;
        private final LockOwner writer;
        private Manifest current;

        ManifestUpdates(Manifest initial, ManifestSlot slot, LockOwner writer) {
            this.current = initial;
            this.slot = slot;
            this.writer = writer;
        }

        synchronized void recorded(ManifestFile file) throws IOException {
            current = current.withFile(file, Catalog.now());
            slot.write(current, writer);
        }

        synchronized Manifest current() {
            return current;
        }
    }
}

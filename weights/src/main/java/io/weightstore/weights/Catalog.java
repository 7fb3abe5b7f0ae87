package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints in a store, and where their pieces live: one manifest object, one object per
 * file, and for each safetensors file its tensor CRC table: {@code weights/<id>/manifest},
 * {@code weights/<id>/files/<path>} and {@code weights/<id>/checks/<path>} for a checkpoint's first
 * version, {@code weights/<id>/v<N>/files/<path>} and {@code .../v<N>/checks/<path>} for what
 * replace number N wrote; a file's column layout for N ranks ({@link ColumnLayout}) at {@code columns/N/<path>} under
 * the version that stored it. A replace under way keeps its manifest at {@code weights/<id>/replacement}
 * until it is READY; then that one write of the manifest switches every loader to it. Listing is a
 * prefix listing on the master; there is no index object to read-modify-write.
 */
public final class Catalog {
    private static final Logger log = LoggerFactory.getLogger(Catalog.class);
    private static final String ROOT = "weights/";
    private static final String MANIFEST = "/manifest";
    private static final String REPLACEMENT = "/replacement";
    private static final String FILES = "files/";
    private static final String CHECKS = "checks/";
    private static final String COLUMNS = "columns/";
    /** After the checkpoint's prefix, what a replace writes under: group 1 is its version; absent for version 0. */
    private static final String VERSION = "(?:v([1-9][0-9]{0,8})/)?";
    private static final Pattern FILE_KEY = Pattern.compile(VERSION + FILES + ".+");
    /** A file's, a CRC table's or a column layout's key after the checkpoint's prefix. */
    private static final Pattern VERSIONED_KEY = Pattern.compile(VERSION + "(?:" + FILES + "|" + CHECKS + "|" + COLUMNS
            + "[1-9][0-9]{0,8}/).+");
    /** Manifests and CRC tables are small and every load reads them: a copy on every node, up to this many. */
    private static final int MAX_SMALL_OBJECT_REPLICAS = 3;
    /** Far above any real manifest (a few hundred bytes a file); a larger object is not one, and is not read onto the heap. */
    private static final long MAX_MANIFEST_BYTES = 64L << 20;

    /**
     * How long a manifest's write waits for readers that hold it: longer than a read lease (30 s unless a
     * client chose otherwise), so a reader that died holding one is outlived.
     */
    static final Duration READERS_PATIENCE = Duration.ofSeconds(45);

    private final StoreClient store;
    private Integer smallObjectReplicas;

    public Catalog(StoreClient store) {
        this.store = store;
    }

    public StoreClient store() {
        return store;
    }

    // ---- key layout

    static String prefix(CheckpointId id) {
        return ROOT + id + "/";
    }

    static String manifestKey(CheckpointId id) {
        return ROOT + id + MANIFEST;
    }

    static String replacementKey(CheckpointId id) {
        return ROOT + id + REPLACEMENT;
    }

    static String fileKey(CheckpointId id, int version, String path) {
        return versionPrefix(id, version) + FILES + path;
    }

    static String checksKey(CheckpointId id, int version, String path) {
        return versionPrefix(id, version) + CHECKS + path;
    }

    static String columnsKey(CheckpointId id, int version, int worldSize, String path) {
        return versionPrefix(id, version) + COLUMNS + worldSize + "/" + path;
    }

    private static String versionPrefix(CheckpointId id, int version) {
        if (version < 0) {
            throw new IllegalArgumentException("version=" + version + " of checkpoint " + id);
        }
        return version == 0 ? prefix(id) : prefix(id) + "v" + version + "/";
    }

    /** Whether {@code key}, under the checkpoint's prefix, holds one of its files (of any version). */
    static boolean isFileKey(CheckpointId id, String key) {
        return key.startsWith(prefix(id)) && FILE_KEY.matcher(key.substring(prefix(id).length())).matches();
    }

    /**
     * The files and CRC tables of versions up to {@code ready}'s that it does not name, among
     * {@code objects} under its prefix: what a replace left because a reader still read it. Keys of
     * later versions belong to a replace under way, and anything else under the prefix to no version.
     */
    static List<ObjectMeta> leftovers(Manifest ready, Collection<ObjectMeta> objects) {
        CheckpointId id = ready.checkpointId();
        Set<String> named = new HashSet<>();
        for (ManifestFile file : ready.files()) {
            named.add(fileKey(id, file.version(), file.path()));
            named.add(checksKey(id, file.version(), file.path()));
            file.columnLayouts().forEach(layout -> named.add(columnsKey(id, layout.version(), layout.worldSize(), file.path())));
        }
        List<ObjectMeta> left = new ArrayList<>();
        for (ObjectMeta object : objects) {
            if (!object.key().startsWith(prefix(id)) || named.contains(object.key())) {
                continue;
            }
            Matcher versioned = VERSIONED_KEY.matcher(object.key().substring(prefix(id).length()));
            if (versioned.matches() && (versioned.group(1) == null ? 0 : Integer.parseInt(versioned.group(1))) <= ready.version()) {
                left.add(object);
            }
        }
        return left;
    }

    static String lockName(CheckpointId id) {
        return ROOT + id;
    }

    /** The checkpoint a manifest key belongs to, or empty when the key is not a manifest. */
    static Optional<CheckpointId> idOfManifest(String key) {
        if (!key.startsWith(ROOT) || !key.endsWith(MANIFEST)) {
            return Optional.empty();
        }
        String id = key.substring(ROOT.length(), key.length() - MANIFEST.length());
        try {
            return Optional.of(new CheckpointId(id));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // ---- manifests

    /**
     * The manifest of a checkpoint, or empty when there is none. A manifest that names who imported it
     * must have been written by that identity, as the master recorded it: anyone else who rewrote it
     * could name anyone.
     */
    public Optional<Manifest> manifest(CheckpointId id) throws IOException {
        Optional<WrittenManifest> written = read(id);
        if (written.isPresent()) {
            requireWrittenByImporter(written.get());
        }
        return written.map(WrittenManifest::manifest);
    }

    private static void requireWrittenByImporter(WrittenManifest written) throws CheckpointException {
        if (written.mismatch().isPresent()) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, written.mismatch().get());
        }
    }

    /**
     * The manifest as stored, even one whose writer is not the importer it names: for an import over
     * it, which takes nothing from it on trust (it skips a file only when it wrote that file itself).
     */
    Optional<Manifest> storedManifest(CheckpointId id) throws IOException {
        return read(id).map(WrittenManifest::manifest);
    }

    /** The manifest of a replace under way or failed, as stored; like {@link #storedManifest}, taken on no trust. */
    Optional<Manifest> storedReplacement(CheckpointId id) throws IOException {
        return read(replacementKey(id)).map(WrittenManifest::manifest);
    }

    /**
     * The replace of {@code live} that has not become READY, if any: a replacement manifest of a later
     * version than {@code live}'s. One of the same version was left by a replace that did become READY.
     */
    Optional<Manifest> unfinishedReplacement(Manifest live) throws IOException {
        return storedReplacement(live.checkpointId()).filter(r -> r.version() > live.version());
    }

    /** A manifest, and the identity the master recorded as the writer of its object. */
    private record WrittenManifest(Manifest manifest, String writer) {
        /** What is wrong when the manifest names an importer other than its writer. */
        Optional<String> mismatch() {
            if (manifest.importedBy() == null || manifest.importedBy().equals(writer)) {
                return Optional.empty();
            }
            return Optional.of("manifest of " + manifest.checkpointId() + " says it was imported by "
                    + Owners.describe(manifest.importedBy()) + ", but the master says " + Owners.describe(writer) + " wrote it");
        }
    }

    private Optional<WrittenManifest> read(CheckpointId id) throws IOException {
        return read(manifestKey(id));
    }

    private Optional<WrittenManifest> read(String key) throws IOException {
        Optional<LeasedRead> read = readLeased(key);
        read.ifPresent(leased -> leased.lease().close());
        return read.map(LeasedRead::written);
    }

    /** A manifest as read, and the reader whose lease it was read under, still open. */
    private record LeasedRead(WrittenManifest written, ObjectReader lease) {}

    private Optional<LeasedRead> readLeased(String key) throws IOException {
        ObjectReader object = null;
        try {
            object = store.open(key);
            if (object.size() > MAX_MANIFEST_BYTES) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest " + key + " is " + object.size()
                        + " bytes, more than any manifest (" + MAX_MANIFEST_BYTES + "): not reading it");
            }
            byte[] json = new byte[Math.toIntExact(object.size())];
            object.read(new Range(0, json.length), MemorySegment.ofArray(json));
            return Optional.of(new LeasedRead(new WrittenManifest(Manifest.fromJson(json, key), object.object().owner()), object));
        } catch (IOException | RuntimeException e) {
            if (object != null) {
                object.close();
            }
            if (e instanceof StoreException s && s.code() == StoreException.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The object holding a checkpoint's manifest, or empty when there is none. Its {@code createdAt}
     * changes whenever the manifest is written, so a reader that keeps manifests can tell, with one
     * metadata call and no read, whether its copy is current.
     */
    public Optional<ObjectMeta> manifestObject(CheckpointId id) throws StoreException {
        return store.find(manifestKey(id));
    }

    /** The manifest of a checkpoint that exists, whatever its status. */
    public Manifest existingManifest(CheckpointId id) throws IOException {
        return manifest(id).orElseThrow(() -> noSuchCheckpoint(id));
    }

    /** What a verb naming a checkpoint the store does not hold fails with. */
    static CheckpointException noSuchCheckpoint(CheckpointId id) {
        return new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store");
    }

    /** The manifest of a checkpoint that loaders may read: it exists and is READY. */
    public Manifest readyManifest(CheckpointId id) throws IOException {
        LeasedManifest ready = readyManifestLeased(id);
        ready.lease().close();
        return ready.manifest();
    }

    /** A READY manifest, and the open reader whose read lease it was read under: closing it ends the lease. */
    public record LeasedManifest(Manifest manifest, ObjectReader lease) {}

    /**
     * As {@link #readyManifest}, leaving the read lease the manifest was read under for the caller to end:
     * a load ends it beside its open, not before it, a round trip to the master off the way to its first
     * byte (every tensor-parallel rank opens the checkpoint).
     */
    public LeasedManifest readyManifestLeased(CheckpointId id) throws IOException {
        LeasedRead read = readLeased(manifestKey(id)).orElseThrow(() -> noSuchCheckpoint(id));
        try {
            requireWrittenByImporter(read.written());
            Manifest manifest = read.written().manifest();
            if (manifest.status() != CheckpointStatus.READY) {
                throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id + " is " + manifest.status()
                        + ", not READY" + (manifest.error() == null ? "" : " (" + manifest.error() + ")"));
            }
            return new LeasedManifest(manifest, read.lease());
        } catch (CheckpointException e) {
            read.lease().close();
            throw e;
        }
    }

    /** The id of every checkpoint that has a manifest, in id order: one prefix listing, no manifest read. */
    public List<CheckpointId> ids() throws IOException {
        List<CheckpointId> ids = new ArrayList<>();
        for (ObjectMeta object : store.list(ROOT)) {
            idOfManifest(object.key()).ifPresent(ids::add);
        }
        return ids;
    }

    /**
     * Every checkpoint, in id order, each READY one with what the master's metadata says against its
     * manifest: one prefix listing and one manifest read per checkpoint, no file's bytes.
     */
    public List<ListedCheckpoint> list() throws IOException {
        Map<String, ObjectMeta> objects = new HashMap<>();
        Map<String, List<ObjectMeta>> byPrefix = new HashMap<>();
        List<CheckpointId> ids = new ArrayList<>();
        for (ObjectMeta object : store.list(ROOT)) {
            objects.put(object.key(), object);
            int slash = object.key().indexOf('/', ROOT.length());
            if (slash > 0) {
                byPrefix.computeIfAbsent(object.key().substring(0, slash + 1), prefix -> new ArrayList<>()).add(object);
            }
            idOfManifest(object.key()).ifPresent(ids::add);
        }
        List<ListedCheckpoint> listed = new ArrayList<>();
        for (CheckpointId id : ids) {
            try {
                read(id).ifPresent(written -> listed.add(listing(written, objects, byPrefix.getOrDefault(prefix(id), List.of()))));
            } catch (CheckpointException | StoreException e) {
                // One manifest no one can read (junk a writer put there, a newer schema, no copy that can serve it: its
                // node gone, its bytes rotten) must not hide every other checkpoint.
                if (e instanceof StoreException failed) {
                    if (!failed.noCopyServed()) {
                        throw failed;
                    }
                    requireMasterAnswers(id, failed);
                }
                listed.add(ListedCheckpoint.unreadable(id, objects.get(manifestKey(id)), e.getMessage()));
            }
        }
        return listed;
    }

    /**
     * A read that no copy served may have failed at the master instead, gone since the listing: then
     * the listing fails, as it would have had the master gone before it, rather than call every
     * checkpoint after that point FAILED.
     */
    private void requireMasterAnswers(CheckpointId id, StoreException failed) throws StoreException {
        try {
            store.find(manifestKey(id));
        } catch (StoreException master) {
            master.addSuppressed(failed);
            throw master;
        }
    }

    private ListedCheckpoint listing(WrittenManifest written, Map<String, ObjectMeta> objects, List<ObjectMeta> underItsPrefix) {
        Manifest manifest = written.manifest();
        List<String> problems = new ArrayList<>();
        if (manifest.status() == CheckpointStatus.READY) {
            written.mismatch().ifPresent(problems::add);
            for (StoredFile file : files(manifest)) {
                ObjectMeta object = objects.get(file.key());
                if (object == null) {
                    problems.add(file.path() + " is missing (no object " + file.key() + ")");
                    continue;
                }
                file.mismatch(object).ifPresent(problems::add);
                if (file.file().tensorCrcsSha256() != null && !objects.containsKey(file.checksKey())) {
                    problems.add("the tensor CRC table of " + file.path() + " is missing (no object " + file.checksKey() + ")");
                }
                for (ColumnLayout layout : file.file().columnLayouts()) {
                    ObjectMeta laidOut = objects.get(file.columnsKey(layout));
                    if (laidOut == null) {
                        problems.add("the column layout for " + layout.worldSize() + " ranks of " + file.path() + " is missing (no object "
                                + file.columnsKey(layout) + ")");
                        continue;
                    }
                    try {
                        file.requireLayoutMatches(layout, laidOut);
                    } catch (CheckpointException e) {
                        problems.add(e.getMessage());
                    }
                }
            }
        }
        List<ObjectMeta> left = manifest.status() == CheckpointStatus.READY ? leftovers(manifest, underItsPrefix) : List.of();
        return new ListedCheckpoint(manifest, null, manifest.checkable(), problems, replacement(manifest, objects).orElse(null),
                left.isEmpty() ? null : ListedCheckpoint.Leftovers.of(left));
    }

    /**
     * The replace of a READY checkpoint that has not become READY itself, if there is one. One that
     * cannot be read is left out: loaders never read it, and the next replace writes it again.
     */
    private Optional<ListedCheckpoint.Replacement> replacement(Manifest live, Map<String, ObjectMeta> objects) {
        if (live.status() != CheckpointStatus.READY || !objects.containsKey(replacementKey(live.checkpointId()))) {
            return Optional.empty();
        }
        try {
            return unfinishedReplacement(live).map(ListedCheckpoint.Replacement::of);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes the manifest as {@code writer}, which must hold the checkpoint's lock while the master starts
     * and seals the put; returns the object as the master sealed it.
     */
    ObjectMeta writeManifest(Manifest manifest, LockOwner writer) throws IOException {
        return write(manifestKey(manifest.checkpointId()), manifest, writer);
    }

    /** As {@link #writeManifest}, for the manifest of a replace, which no loader reads until it is READY. */
    ObjectMeta writeReplacement(Manifest manifest, LockOwner writer) throws IOException {
        return write(replacementKey(manifest.checkpointId()), manifest, writer);
    }

    /**
     * Writes a manifest, waiting out its readers: the master refuses to replace an object while a reader holds its
     * lease, which a load, a listing or a verify does for the moments it reads the manifest, and a reader whose process
     * died does until its lease runs out. Refused for good, an import's last step would throw away every file it sent.
     */
    private ObjectMeta write(String key, Manifest manifest, LockOwner writer) throws IOException {
        String lock = lockName(manifest.checkpointId());
        PutOptions options = PutOptions.defaults().withReplace(true).withPin(true).withWriterUnderLock(writer.toString(), lock);
        byte[] json = manifest.toJson();
        long deadline = System.nanoTime() + READERS_PATIENCE.toNanos();
        long pauseMs = 20;
        while (true) {
            try {
                return putSmall(key, json, options);
            } catch (StoreException e) {
                // A writer that lost the lock is refused alike, and waiting would not help it.
                if (e.code() != StoreException.Code.FAILED_PRECONDITION || System.nanoTime() > deadline
                        || !CatalogLock.stillHeld(store, lock, writer)) {
                    throw e;
                }
                log.info("waiting to write {}: {}", key, e.getMessage());
            }
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting to write " + key);
            }
            pauseMs = Math.min(2 * pauseMs, 1000);
        }
    }

    /**
     * Puts one of the small objects every load reads (a manifest, a tensor CRC table) with {@code options}, at one
     * copy per node that takes new objects, up to three: counted once per catalog, and again when a put is refused for
     * want of nodes (one lost, or being drained, since), which is then tried once more at the new count.
     */
    ObjectMeta putSmall(String key, byte[] bytes, PutOptions options) throws IOException {
        int replicas = smallObjectReplicas(false);
        try {
            return store.put(key, bytes, options.withReplicas(replicas));
        } catch (StoreException e) {
            if (e.code() != StoreException.Code.UNAVAILABLE || smallObjectReplicas(true) == replicas) {
                throw e;
            }
            return store.put(key, bytes, options.withReplicas(smallObjectReplicas(false)));
        }
    }

    /** Counted from the nodes up and not being drained: the only ones a put is placed on. */
    private synchronized int smallObjectReplicas(boolean recount) throws StoreException {
        if (smallObjectReplicas == null || recount) {
            long placeable = store.status().nodes().stream().filter(node -> node.up() && !node.draining()).count();
            smallObjectReplicas = (int) Math.max(1, Math.min(MAX_SMALL_OBJECT_REPLICAS, placeable));
        }
        return smallObjectReplicas;
    }

    /**
     * Removes what {@link #leftovers} finds of {@code ready}'s earlier versions, in one removal that a
     * reader's lease refuses unless {@code force}, and the master refuses unless {@code writer} still
     * holds the checkpoint's lock. Returns what was removed.
     */
    List<ObjectMeta> removeLeftovers(Manifest ready, boolean force, LockOwner writer) throws StoreException {
        List<ObjectMeta> left = leftovers(ready, store.list(prefix(ready.checkpointId())));
        if (!left.isEmpty()) {
            store.removeAllUnderLock(left.stream().map(ObjectMeta::key).toList(), force, writer.toString(),
                    lockName(ready.checkpointId()));
        }
        return left;
    }

    // ---- files

    /** One file of the checkpoint, as the manifest records it, with the object that holds it. */
    public StoredFile file(Manifest manifest, ManifestFile file) {
        CheckpointId id = manifest.checkpointId();
        return new StoredFile(store, manifest, file, fileKey(id, file.version(), file.path()), checksKey(id, file.version(), file.path()));
    }

    public List<StoredFile> files(Manifest manifest) {
        return manifest.files().stream().map(f -> file(manifest, f)).toList();
    }

    static Instant now() {
        return Instant.now();
    }
}

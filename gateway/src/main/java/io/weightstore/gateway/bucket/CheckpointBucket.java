package io.weightstore.gateway.bucket;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.ListPage;
import io.weightstore.gateway.s3.ListRequest;
import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.store.api.KeyOrder;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's checkpoints as one bucket: key {@code <checkpoint-id>/<relative path>} is that file of
 * that checkpoint. Only READY checkpoints are visible; one being imported, failed or deleted has no
 * keys. An object's ETag is the file's SHA-256 from the manifest, quoted; its Last-Modified is when
 * the manifest was last written, which for a READY checkpoint is when it became READY.
 *
 * <p>Manifests are kept between requests. Profiled under the bench, reading a manifest for every
 * GET cost two master calls of four, and asking the master for its version every time still one of
 * three; on two cores the master calls were a third of the CPU a GET of 2 MiB used. So a manifest's
 * version is checked with the master at most once every {@link #RECHECK} per checkpoint: a
 * checkpoint deleted, or being replaced, disappears within that time. Bytes are never served under
 * another version's ETag: {@link #open} checks that the file's stored object is the one its manifest
 * describes (see there).
 */
public final class CheckpointBucket {
    private static final Logger log = LoggerFactory.getLogger(CheckpointBucket.class);
    /** The checkpoint changed between finding an object and opening it; the bucket knows its new version now. */
    public static final class Changed extends IOException {
        private static final long serialVersionUID = 1L;

        Changed(String message) {
            super(message);
        }
    }

    /** How long a manifest's version, once checked with the master, is taken as current; and a checkpoint's absence. */
    static final Duration RECHECK = Duration.ofSeconds(1);
    /** Checkpoints found absent that are remembered at most: ids a client makes up must not grow the heap. */
    private static final int ABSENT_KEPT = 4096;

    private final String name;
    private final Catalog catalog;
    private final ConcurrentMap<CheckpointId, Known> manifests = new ConcurrentHashMap<>();
    /** Checkpoints the master said it does not hold, and when (a {@link System#nanoTime} value). */
    private final ConcurrentMap<CheckpointId, Long> absent = new ConcurrentHashMap<>();
    /**
     * The checks of manifests with the master under way, by checkpoint id, which requests that find a check due while
     * one runs wait for; each is removed when it ends, so the map holds no more than the requests at once. A lock per
     * id would grow with every id a client makes up; a fixed set of them queued the checks of real checkpoints behind
     * those of made-up ids (one master call each).
     */
    private final ConcurrentMap<CheckpointId, CompletableFuture<Known>> checking = new ConcurrentHashMap<>();
    private final Object listingIds = new Object();
    private volatile ListedIds ids;
    private final SharedLeases leases = new SharedLeases();

    /** The store's checkpoint ids as one listing found them, and when (a {@link System#nanoTime} value). */
    private record ListedIds(List<CheckpointId> ids, long listedAt) {}

    /**
     * A checkpoint's manifest as read at one version (empty when it was not READY), when that version
     * was last confirmed with the master, and, by path, the stored objects (by creation time) seen to
     * be the ones it describes.
     */
    private static final class Known {
        final Instant version;
        final Optional<Manifest> ready;
        final ConcurrentMap<String, Instant> files = new ConcurrentHashMap<>();
        volatile long confirmedAt = System.nanoTime();

        Known(Instant version, Optional<Manifest> ready) {
            this.version = version;
            this.ready = ready;
        }
    }

    public CheckpointBucket(String name, Catalog catalog) {
        this.name = name;
        this.catalog = catalog;
    }

    public String name() {
        return name;
    }

    /** The object {@code key} names, or empty when no READY checkpoint has that file. */
    public Optional<BucketObject> find(String key) throws IOException {
        int slash = key.indexOf('/');
        Optional<CheckpointId> id = slash < 0 ? Optional.empty() : id(key.substring(0, slash));
        if (id.isEmpty()) {
            return Optional.empty();
        }
        Known known = current(id.get());
        if (known == null || known.ready.isEmpty()) {
            return Optional.empty();
        }
        Manifest manifest = known.ready.get();
        return manifest.file(key.substring(slash + 1)).map(file -> new BucketObject(info(manifest, file), file.sha256(),
                catalog.file(manifest, file), id.get(), known.version));
    }

    /**
     * Opens the object's file for one request under a read lease that the requests for the file in
     * flight at the same time share ({@link SharedLeases}): the lease is taken, and the file checked
     * against its manifest, as {@link #open} does, by the first of them.
     */
    public OpenFile acquire(BucketObject object) throws IOException {
        return leases.acquire(new SharedLeases.FileVersion(object.checkpoint(), object.file().path(), object.manifestVersion()),
                () -> open(object));
    }

    /** Read leases the bucket holds now, each for one file and the requests reading it. */
    public int leasesHeld() {
        return leases.held();
    }

    /** Read leases the bucket took so far, each shared by the GETs of its file in flight together. */
    public long leasesTaken() {
        return leases.taken();
    }

    /**
     * Opens the object's file under a read lease, held until the reader is closed. The first time a
     * file is opened under a manifest version, and whenever its stored object is not the one seen
     * then, the manifest's version is checked with the master after the open: an import or a delete
     * removes a file object only once no READY manifest names it, so if the version still stands,
     * the object opened is the one it describes.
     *
     * @throws S3Error InternalError when the file is gone and its manifest still names it
     * @throws Changed when the checkpoint changed since {@code object} was found: find it again
     */
    private ObjectReader open(BucketObject object) throws IOException {
        ObjectReader reader;
        try {
            reader = object.file().open();
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                // Deleted, or replaced by a version that stored the file elsewhere: either way its manifest changed.
                requireCurrent(object);
                // Its manifest still names it: lost, not absent, which a 404 would tell a client it is.
                throw new S3Error(ErrorCode.INTERNAL_ERROR, "checkpoint " + object.checkpoint() + " names " + object.file().path()
                        + ", but the store has no object for it").with("Key", object.info().key());
            }
            throw e;
        } catch (CheckpointException e) {
            // The object is not the one the manifest found describes: a checkpoint replaced since, or a file tampered with.
            if (e.code() == CheckpointException.Code.CORRUPT) {
                requireCurrent(object);
            }
            throw e;
        }
        try {
            CheckpointId id = object.checkpoint();
            String path = object.file().path();
            Instant stored = reader.object().createdAt();
            Known known = manifests.get(id);
            if (known != null && known.version.equals(object.manifestVersion()) && stored.equals(known.files.get(path))) {
                return reader;
            }
            requireCurrent(object).files.put(path, stored);
            return reader;
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /**
     * The checkpoint's manifest as the master has it now.
     *
     * @throws Changed unless it is still the version {@code object} was found under
     */
    private Known requireCurrent(BucketObject object) throws IOException {
        Known now = refresh(object.checkpoint());
        if (now == null || !now.version.equals(object.manifestVersion())) {
            throw new Changed("checkpoint " + object.checkpoint() + " changed while " + object.info().key() + " was being opened");
        }
        return now;
    }

    /**
     * The objects a page of {@code request} is made from ({@link ListPage#of}), in S3's key order: every one under its
     * prefix, less what cannot change the page. Keys are CHECKPOINT/FILE, so checkpoints in the order of CHECKPOINT/
     * give every key in order; a checkpoint whose keys all sort before the marker is passed over, its manifest unread.
     * Without a delimiter the listing stops once the page is full and one more key shows it truncated; with {@code /}
     * and a prefix within checkpoint ids, every key of a checkpoint rolls up into CHECKPOINT/, so one key of each
     * stands for all, the first past the marker. Before, each page built and sorted every file of every checkpoint:
     * a whole listing cost time in the square of the bucket's size.
     */
    public List<ObjectInfo> list(ListRequest request) throws IOException {
        String prefix = request.prefix();
        String after = request.after().orElse(null);
        int slash = prefix.indexOf('/');
        if (slash >= 0) {
            Optional<CheckpointId> id = id(prefix.substring(0, slash));
            Known known = id.isEmpty() ? null : current(id.get());
            return known == null || known.ready.isEmpty() ? List.of() : sortedFiles(known.ready.get());
        }
        boolean byKey = request.delimiter().isEmpty();
        boolean byCheckpoint = request.delimiter().equals("/");
        List<CheckpointId> ids = checkpointIds().stream().filter(id -> id.value().startsWith(prefix))
                .sorted(Comparator.comparing(id -> id.value() + "/", KeyOrder.UTF8)).toList();
        List<ObjectInfo> objects = new ArrayList<>();
        int pastMarker = 0;
        for (CheckpointId id : ids) {
            String top = id.value() + "/";
            if (after != null && KeyOrder.compare(top, after) < 0 && !after.startsWith(top)) {
                continue;
            }
            // Each checkpoint as a GET of its files finds it (the manifests known, checked with the master once a
            // second): one whose manifest cannot be trusted or read is left out, as its files cannot be fetched.
            Known known = current(id);
            if (known == null || known.ready.isEmpty()) {
                continue;
            }
            List<ObjectInfo> files = sortedFiles(known.ready.get());
            List<ObjectInfo> past = after == null ? files : files.stream().filter(f -> KeyOrder.compare(f.key(), after) > 0).toList();
            if (byCheckpoint) {
                if (!past.isEmpty()) {
                    objects.add(past.getFirst());
                    pastMarker += top.equals(after) ? 0 : 1;
                }
            } else {
                objects.addAll(files);
                pastMarker += past.size();
            }
            if ((byKey || byCheckpoint) && pastMarker > request.maxKeys()) {
                break;
            }
        }
        return objects;
    }

    private static List<ObjectInfo> sortedFiles(Manifest manifest) {
        List<ObjectInfo> files = new ArrayList<>();
        for (ManifestFile file : manifest.files()) {
            files.add(info(manifest, file));
        }
        files.sort(Comparator.comparing(ObjectInfo::key, KeyOrder.UTF8));
        return files;
    }

    /**
     * The store's checkpoint ids, listed again when the last listing is older than {@link #RECHECK}: a listing of the
     * whole bucket comes a page at a time, and the master's listing names every object of every checkpoint.
     */
    private List<CheckpointId> checkpointIds() throws IOException {
        ListedIds listed = ids;
        if (listed != null && lately(listed.listedAt())) {
            return listed.ids();
        }
        synchronized (listingIds) {
            listed = ids;
            if (listed == null || !lately(listed.listedAt())) {
                long asked = System.nanoTime();
                listed = new ListedIds(List.copyOf(catalog.ids()), asked);
                ids = listed;
            }
            return listed.ids();
        }
    }

    /**
     * The manifest as last known, checked with the master if that was longer ago than {@link #RECHECK}; null when there
     * is none (an absence too is taken as known for that long). Requests that find the check due at once wait for one of
     * them to make it, and take what it found.
     */
    private Known current(CheckpointId id) throws IOException {
        Known known = manifests.get(id);
        if (confirmedLately(known) || known == null && absentLately(id)) {
            return known;
        }
        CompletableFuture<Known> mine = new CompletableFuture<>();
        CompletableFuture<Known> running = checking.putIfAbsent(id, mine);
        if (running != null) {
            return Futures.awaitShared(running);
        }
        try {
            // A check may have ended between the look above and this one's start.
            known = manifests.get(id);
            Known now = confirmedLately(known) || known == null && absentLately(id) ? known : refresh(id);
            mine.complete(now);
            return now;
        } catch (IOException | RuntimeException | Error e) {
            // Every failure, an Error too: the requests waiting on this check have no deadline of their own.
            mine.completeExceptionally(e);
            throw e;
        } finally {
            checking.remove(id, mine);
        }
    }

    private boolean absentLately(CheckpointId id) {
        Long since = absent.get(id);
        return since != null && lately(since);
    }

    private static boolean confirmedLately(Known known) {
        return known != null && lately(known.confirmedAt);
    }

    /** Whether {@code nanos} (a {@link System#nanoTime} value) is less than {@link #RECHECK} ago. */
    private static boolean lately(long nanos) {
        return System.nanoTime() - nanos < RECHECK.toNanos();
    }

    /** Asks the master for the manifest's version; reads the manifest again only when that changed. Null when there is none. */
    private Known refresh(CheckpointId id) throws IOException {
        Optional<ObjectMeta> object = catalog.manifestObject(id);
        if (object.isEmpty()) {
            manifests.remove(id);
            if (absent.size() >= ABSENT_KEPT) {
                absent.clear();
            }
            absent.put(id, System.nanoTime());
            return null;
        }
        absent.remove(id);
        Instant version = object.get().createdAt();
        Known known = manifests.get(id);
        if (known != null && known.version.equals(version)) {
            known.confirmedAt = System.nanoTime();
            return known;
        }
        // Read after the version was taken: what is kept is never older than the version it is kept under.
        Optional<Manifest> ready;
        try {
            ready = catalog.manifest(id).filter(m -> m.status() == CheckpointStatus.READY);
        } catch (CheckpointException untrusted) {
            // Served as one not READY: its files cannot be fetched, and why (it may name who wrote it) is the operator's.
            log.warn("checkpoint {} is not served: {}", id, untrusted.getMessage());
            ready = Optional.empty();
        }
        Known read = new Known(version, ready);
        manifests.put(id, read);
        return read;
    }

    private static Optional<CheckpointId> id(String text) {
        try {
            return Optional.of(new CheckpointId(text));
        } catch (IllegalArgumentException notAnId) {
            return Optional.empty();
        }
    }

    private static ObjectInfo info(Manifest manifest, ManifestFile file) {
        Instant lastModified = manifest.updatedAt().truncatedTo(ChronoUnit.SECONDS);
        return new ObjectInfo(manifest.checkpointId() + "/" + file.path(), file.size(), '"' + file.sha256() + '"', lastModified);
    }
}

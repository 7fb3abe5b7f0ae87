package io.weightstore.weights.loader;

import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ArrivedCrc;
import io.weightstore.store.client.Futures;
import io.weightstore.store.client.MappedObject;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.ColumnLayout;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.StoreRangeSource;
import io.weightstore.weights.StoredFile;
import io.weightstore.weights.VerifiedCopy;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A READY checkpoint opened for loading: {@code weightstore://<checkpoint-id>}. Every weight file
 * is opened at once, under read leases held until the source is closed, so the checkpoint cannot
 * be deleted (without force) in the middle of a load. Metadata files are materialized to a local
 * cache; weight files never touch local disk: their tensors stream from the nodes into off-heap
 * memory, the whole checkpoint or one tensor-parallel rank's share. A file whose every slice lies in
 * a pool on this host is not copied at all: its tensors are read-only views of the mapped pools,
 * as an engine's own loader maps a local file, valid as long as the source is open.
 *
 * <p>What is read is checked against the manifest, the root of trust: each file's object on open
 * (size, writer, block checksums), each tensor or shard as it arrives (the import's CRC table), a
 * file seen in place by a pass over its blocks against those same block checksums, and on request
 * every file's SHA-256 ({@link #verifyFiles}).
 */
public final class CheckpointSource implements AutoCloseable {
    public static final String SCHEME = "weightstore";
    private static final Logger log = LoggerFactory.getLogger(CheckpointSource.class);
    /** Opens of one load that may each find the checkpoint replaced under it before it gives up. */
    private static final int OPENS_ACROSS_REPLACES = 3;

    /**
     * Where a tensor is: its file, the open object holding it, that file's data offset, its header entry,
     * and the CRCs the import recorded for it and its shards (empty when there are none to check).
     */
    public record Location(String file, ObjectReader object, long dataStart, TensorInfo info, Optional<TensorCrcs> crcs) {
        /** Where {@code read}'s bytes start in the object. */
        long offsetOf(ShardRead read) {
            return dataStart + info.begin() + read.offset();
        }
    }

    /**
     * What {@link #materializeMetadata} did.
     *
     * @param removed files of the cache directory that this version does not have, left by a load of another
     */
    public record Materialized(Path dir, int written, int unchanged, int removed) {
        /** Whether the directory held anything but this version's files before: an engine that read it read another's. */
        public boolean changed() {
            return written > 0 || removed > 0;
        }
    }

    /** Takes each tensor of a stream in turn. */
    @FunctionalInterface
    public interface TensorSink {
        void accept(Tensor tensor) throws IOException;
    }

    private final StoreClient store;
    private final boolean ownsStore;
    private final Catalog catalog;
    private final Manifest manifest;
    private final LoadOptions options;
    private final StreamBufferPool buffers;
    private final boolean ownsBuffers;
    private final Map<String, ObjectReader> weightFiles = new LinkedHashMap<>();
    /**
     * The CRC tables' readers, kept open for their leases alone and ended with the weight files' in the one
     * call the close makes: ended apart, they were a round trip to the master on the way to the first byte
     * (a millisecond or more here), and every tensor-parallel rank opens the checkpoint.
     */
    private final List<ObjectReader> tableLeases = new ArrayList<>();
    private final Map<String, TensorCrcTable> crcTables = new HashMap<>();
    /** Per world size, the files' column layouts opened for it (by file path), each under a lease ended by the close. */
    private final Map<Integer, Map<String, OpenedLayout>> layouts = new HashMap<>();
    private final List<ObjectReader> layoutLeases = new ArrayList<>();
    /** Per world size, the files whose column layout failed a {@link #verifyFiles} check: not read from. */
    private final Map<Integer, Set<String>> givenUpLayouts = new HashMap<>();
    private final Map<String, SafetensorsHeader> headers = new HashMap<>();
    /** Weight files seen in place in pools on this host, unmapped when the source closes. */
    private final Arena views = Arena.ofShared();
    private final Map<ObjectReader, Optional<MemorySegment>> mappedFiles = new HashMap<>();
    /** The checks of mapped files, each run in parallel over the file's slices on the store client's workers. */
    private final Map<ObjectReader, Future<Void>> checks = new HashMap<>();
    /** Files seen in place whose check failed: views of them may have been handed out ahead. */
    private final Set<ObjectReader> failedChecks = new HashSet<>();
    private final ExecutorService checker = Executors.newVirtualThreadPerTaskExecutor();
    private final LongAdder bytesSeenInPlace = new LongAdder();
    private Map<String, Location> tensors;

    private CheckpointSource(StoreClient store, boolean ownsStore, Catalog catalog, Manifest manifest, Optional<ObjectReader> manifestLease,
            LoadOptions options, Optional<Consumer<Materialized>> metadataFirst) throws IOException {
        // Not held to the close, as the tables' leases are: a leased manifest cannot be rewritten, and a replace rewrites it
        // while engines keep the version before open. Ended beside the open, and waited for by release().
        manifestLease.ifPresent(lease -> checker.submit(lease::close));
        this.store = store;
        this.ownsStore = ownsStore;
        this.catalog = catalog;
        this.manifest = manifest;
        this.options = options;
        this.ownsBuffers = options.bufferPool() == null;
        this.buffers = ownsBuffers ? new StreamBufferPool() : options.bufferPool();
        if (!manifest.checkable()) {
            log.warn("checkpoint {} has a schema {} manifest: who wrote its files and their checksums are not recorded, so its"
                    + " files are checked by size only and its tensors by the nodes only; import it again to record them",
                    manifest.checkpointId(), manifest.schemaVersion());
        }
        try {
            requireImporter(manifest, options.importer());
            if (metadataFirst.isPresent()) {
                metadataFirst.get().accept(materializeMetadata());
            }
            openWeightFiles();
        } catch (IOException | RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * Opens the checkpoint as its manifest is now. A replace that becomes READY while a load opens the
     * version before removes the files it no longer names, under the opening: then the load opens the
     * new version instead, a few times at most, unless it already handed over metadata files (config,
     * tokenizer) that the new version changed, which would not go with the new weights. Metadata is
     * handed over once, whatever the attempts.
     */
    private static CheckpointSource openCurrent(StoreClient store, boolean ownsStore, Manifest first, Optional<ObjectReader> firstLease,
            LoadOptions options, Optional<Consumer<Materialized>> metadataFirst) throws IOException {
        Catalog catalog = new Catalog(store);
        AtomicBoolean handedOver = new AtomicBoolean();
        Optional<Consumer<Materialized>> once = metadataFirst.map(tell -> materialized -> {
            if (handedOver.compareAndSet(false, true)) {
                tell.accept(materialized);
            }
        });
        Manifest manifest = first;
        for (int attempt = 1; ; attempt++) {
            try {
                // A failed attempt ended the first manifest's lease; a replacement read below is read without keeping one.
                return new CheckpointSource(store, ownsStore, catalog, manifest, attempt == 1 ? firstLease : Optional.empty(), options,
                        once);
            } catch (IOException e) {
                Optional<Manifest> replacement = replacedSince(catalog, manifest, e);
                if (replacement.isEmpty() || attempt == OPENS_ACROSS_REPLACES) {
                    throw e;
                }
                if (handedOver.get() && !metadataOf(replacement.get()).equals(metadataOf(manifest))) {
                    throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + manifest.checkpointId()
                            + " was replaced by version " + replacement.get().version() + " while this load opened version "
                            + manifest.version() + ", whose config and tokenizer it had handed over already; load it again", e);
                }
                log.info("checkpoint {} was replaced while it was being opened ({}); opening version {} instead of {}",
                        manifest.checkpointId(), e.getMessage(), replacement.get().version(), manifest.version());
                manifest = replacement.get();
            }
        }
    }

    /** The READY manifest now, when it is not {@code opened}; a failure to read it joins {@code failure}. */
    private static Optional<Manifest> replacedSince(Catalog catalog, Manifest opened, IOException failure) {
        try {
            Manifest now = catalog.readyManifest(opened.checkpointId());
            return now.equals(opened) ? Optional.empty() : Optional.of(now);
        } catch (IOException e) {
            failure.addSuppressed(e);
            return Optional.empty();
        }
    }

    /** What {@link #materializeMetadata} writes: every file but the weights, by path and hash. */
    private static Map<String, String> metadataOf(Manifest manifest) {
        Map<String, String> metadata = new HashMap<>();
        manifest.files().stream().filter(f -> !f.isWeight()).forEach(f -> metadata.put(f.path(), String.valueOf(f.sha256())));
        return metadata;
    }

    /**
     * Opens the safetensors files and reads their headers and tensor CRC tables: the leases of the files
     * and their tables in one call to the master, every header and table in one scatter-gather read
     * (the tables' leases end with the files' at the close). File after file, a lease, a header and a table each
     * (with a lease of its own), they were most of the time an open took on a checkpoint of many files
     * (64 files of 16 MiB over loopback: 86 ms of a 222 ms load), and every TP rank opens it.
     */
    private void openWeightFiles() throws IOException {
        List<StoredFile> files = catalog.files(manifest).stream().filter(f -> f.file().isSafetensors()).toList();
        List<StoredFile> tabled = options.tensorChecks() ? files.stream().filter(f -> f.file().tensorCrcsSha256() != null).toList()
                : List.of();
        List<String> keys = new ArrayList<>(files.stream().map(StoredFile::key).toList());
        tabled.forEach(file -> keys.add(file.checksKey()));
        List<ObjectReader> opened;
        try {
            opened = store.openAll(keys);
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                namesWhatIsMissing(files, tabled);
            }
            throw e;
        }
        List<ObjectReader> objects = opened.subList(0, files.size());
        List<ObjectReader> tables = opened.subList(files.size(), opened.size());
        for (int i = 0; i < files.size(); i++) {
            // Held from here on: a failure below ends their leases in release().
            weightFiles.put(files.get(i).path(), objects.get(i));
        }
        tableLeases.addAll(tables);
        List<byte[]> prefixes = new ArrayList<>();
        List<byte[]> tableBytes = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            files.get(i).requireMatches(objects.get(i).object());
        }
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            prefixes.add(wholeOrPrefix(objects.get(i), headerBytes(files.get(i).file()), reads));
        }
        for (int i = 0; i < tables.size(); i++) {
            tabled.get(i).requireTableFits(tables.get(i).size());
            tableBytes.add(wholeOrPrefix(tables.get(i), tables.get(i).size(), reads));
        }
        if (!reads.isEmpty()) {
            store.read(reads);
        }
        for (int i = 0; i < tabled.size(); i++) {
            crcTables.put(tabled.get(i).path(), tabled.get(i).tensorCrcs(tableBytes.get(i)));
        }
        for (int i = 0; i < files.size(); i++) {
            ManifestFile file = files.get(i).file();
            Optional<TensorCrcTable> table = Optional.ofNullable(crcTables.get(file.path()));
            SafetensorsHeader header = header(file, new StoreRangeSource(objects.get(i), prefixes.get(i)));
            requireHeaderAsImported(file, table, prefixes.get(i));
            requireTableOfEveryTensor(file, table, header);
            headers.put(file.path(), header);
        }
    }

    /**
     * Refuses a header read otherwise than the import recorded it in the file's table: it is part of the file's first
     * checksum block, which a read of the header alone leaves to the node to check, and a header changed at its length
     * (a dtype, a shape) gives the engine other tensors than the import stored, with every data CRC matching.
     */
    private void requireHeaderAsImported(ManifestFile file, Optional<TensorCrcTable> table, byte[] prefix) throws CheckpointException {
        OptionalInt recorded = table.map(TensorCrcTable::headerCrc32c).orElse(OptionalInt.empty());
        if (recorded.isEmpty() || prefix.length == 0) {
            return;
        }
        int read = Checksums.crc32c(MemorySegment.ofArray(prefix));
        if (read != recorded.getAsInt()) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "the header of stored " + file.path() + " of "
                    + manifest.checkpointId() + " arrived with CRC32C " + HexFormat.of().toHexDigits(read) + ", where the import"
                    + " recorded " + HexFormat.of().toHexDigits(recorded.getAsInt()) + ": a copy, or the way from it, changed it"
                    + " (model verify " + manifest.checkpointId() + " --repair checks and mends the copies)");
        }
    }

    /** A table that lacks a tensor of the header would let that tensor through unchecked: the two are the import's, together. */
    private void requireTableOfEveryTensor(ManifestFile file, Optional<TensorCrcTable> table, SafetensorsHeader header)
            throws CheckpointException {
        if (table.isPresent() && (table.get().size() != header.tensors().size()
                || header.tensors().stream().anyMatch(tensor -> table.get().tensor(tensor.name()).isEmpty()))) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + file.path() + " of " + manifest.checkpointId()
                    + " has tensors its CRC table does not name, or the table names others");
        }
    }

    /** The first {@code bytes} of {@code object} (at most all of it), onto the heap by a read added to {@code reads}. */
    private static byte[] wholeOrPrefix(ObjectReader object, long bytes, List<Read> reads) throws StoreException {
        long length = Math.min(object.size(), bytes);
        if (length > Integer.MAX_VALUE - 8) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, object.key() + " has " + object.size()
                    + " bytes, too many for the heap");
        }
        byte[] read = new byte[(int) length];
        if (length > 0) {
            reads.add(new Read.Ranges(object, List.of(new Range(0, length)), MemorySegment.ofArray(read)));
        }
        return read;
    }

    /**
     * Opens the files one by one, and reads their tables, to fail as an open of that one alone does:
     * a table that is missing though the manifest records it is CORRUPT, not NOT_FOUND. Returns when
     * nothing is missing any more.
     */
    private static void namesWhatIsMissing(List<StoredFile> files, List<StoredFile> tabled) throws IOException {
        for (StoredFile file : files) {
            file.open().close();
        }
        for (StoredFile file : tabled) {
            file.tensorCrcs();
        }
    }

    /**
     * The length prefix and header the manifest records for {@code file}; none when it records a length
     * the parser would refuse, which is then read the usual way, and refused by it.
     */
    private static long headerBytes(ManifestFile file) {
        return file.headerLength() != null && file.headerLength() > 0 && file.headerLength() <= SafetensorsHeader.MAX_HEADER_LENGTH
                ? SafetensorsHeader.LENGTH_PREFIX_BYTES + file.headerLength() : 0;
    }

    /** The safetensors header {@code source} holds, when it agrees with what the manifest says of it. */
    private SafetensorsHeader header(ManifestFile file, StoreRangeSource source) throws IOException {
        SafetensorsHeader header;
        try {
            header = SafetensorsHeaderParser.read(source);
        } catch (SafetensorsFormatException e) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + file.path() + " of "
                    + manifest.checkpointId() + " has an invalid header: " + e.getMessage(), e);
        }
        // Compared as objects: a manifest that records neither (written by hand, or by a tool of its own) is a mismatch too.
        if (!Long.valueOf(header.headerLength()).equals(file.headerLength())
                || !Integer.valueOf(header.tensors().size()).equals(file.tensorCount())) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored header of " + file.path()
                    + " does not match the manifest");
        }
        return header;
    }

    /** A caller who trusts one importer only refuses a checkpoint imported, or rewritten, by anyone else. */
    private static void requireImporter(Manifest manifest, String trusted) throws CheckpointException {
        if (trusted != null && !trusted.equals(manifest.importedBy())) {
            throw new CheckpointException(CheckpointException.Code.UNTRUSTED, "checkpoint " + manifest.checkpointId()
                    + " was imported by " + (manifest.importedBy() == null ? "an importer its schema " + manifest.schemaVersion()
                    + " manifest does not name" : manifest.importedBy().isEmpty() ? "no identity (a store without identities)"
                    : manifest.importedBy()) + ", not by " + trusted);
        }
    }

    /** Opens {@code weightstore://ID} on the store chosen by {@code options} (or the usual selection). */
    public static CheckpointSource open(URI uri, LoadOptions options) throws IOException {
        return open(uri, options, Optional.empty());
    }

    /**
     * As {@link #open(URI, LoadOptions)}, writing the metadata files ({@link #materializeMetadata()})
     * before the weight files open and telling {@code metadataWritten} what that did: an engine reads
     * config and tokenizer while the rest opens. Nothing is written for a checkpoint the load refuses.
     */
    public static CheckpointSource openMetadataFirst(URI uri, LoadOptions options, Consumer<Materialized> metadataWritten)
            throws IOException {
        return open(uri, options, Optional.of(metadataWritten));
    }

    private static CheckpointSource open(URI uri, LoadOptions options, Optional<Consumer<Materialized>> metadataFirst)
            throws IOException {
        CheckpointId id = checkpointId(uri);
        StoreClient store = StoreLocator.open(options.store(), options.credentials(), options.connections());
        try {
            Catalog.LeasedManifest ready = new Catalog(store).readyManifestLeased(id);
            return openCurrent(store, true, ready.manifest(), Optional.of(ready.lease()), options, metadataFirst);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Opens a checkpoint on a store the caller keeps open. */
    public static CheckpointSource open(StoreClient store, CheckpointId id, LoadOptions options) throws IOException {
        Catalog.LeasedManifest ready = new Catalog(store).readyManifestLeased(id);
        return openCurrent(store, false, ready.manifest(), Optional.of(ready.lease()), options, Optional.empty());
    }

    /** As {@link #open(StoreClient, CheckpointId, LoadOptions)}, from {@code manifest} as read a moment before. */
    static CheckpointSource openFrom(StoreClient store, Manifest manifest, LoadOptions options) throws IOException {
        return openCurrent(store, false, manifest, Optional.empty(), options, Optional.empty());
    }

    /** As {@link #openFrom(StoreClient, Manifest, LoadOptions)}, handing the metadata over first, as {@link #openMetadataFirst}. */
    static CheckpointSource openFrom(StoreClient store, Manifest manifest, LoadOptions options, Consumer<Materialized> metadataWritten)
            throws IOException {
        return openCurrent(store, false, manifest, Optional.empty(), options, Optional.of(metadataWritten));
    }

    /** The checkpoint id of a {@code weightstore://ID} URI. */
    public static CheckpointId checkpointId(URI uri) throws CheckpointException {
        boolean idAlone = (uri.getPath() == null || uri.getPath().isEmpty() || uri.getPath().equals("/"))
                && uri.getQuery() == null;
        if (!SCHEME.equals(uri.getScheme())) {
            throw notAStoreUri(uri.toString(), uri.getScheme() == null ? "no scheme" : "scheme " + uri.getScheme());
        }
        if (uri.getAuthority() == null || !idAlone) {
            throw notAStoreUri(uri.toString(), uri.getAuthority() == null ? "no checkpoint id" : "more than a checkpoint id");
        }
        return CheckpointId.of(uri.getAuthority());
    }

    /**
     * {@code weightstore://ID} as a user wrote it, once it names a checkpoint: refused, naming the form
     * expected and what is wrong, rather than with {@link URI}'s parser's own words about authorities.
     */
    public static URI storeUri(String text) throws CheckpointException {
        if (text.equals(SCHEME + "://")) {
            throw notAStoreUri(text, "no checkpoint id");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw notAStoreUri(text, e.getReason().toLowerCase(Locale.ROOT) + " at index " + e.getIndex());
        }
        checkpointId(uri);
        return uri;
    }

    private static CheckpointException notAStoreUri(String text, String why) {
        return new CheckpointException(CheckpointException.Code.INVALID,
                "expected weightstore://CHECKPOINT_ID, found '" + text + "' (" + why + ")");
    }

    public static boolean isStoreUri(String text) {
        return text.startsWith(SCHEME + "://");
    }

    public Manifest manifest() {
        return manifest;
    }

    public CheckpointId checkpointId() {
        return manifest.checkpointId();
    }

    public StoreClient store() {
        return store;
    }

    /** Object bytes read from the store so far through this source's client, and handed out in place. */
    public long bytesRead() {
        return store.bytesRead() + bytesSeenInPlace.sum();
    }

    /**
     * Writes config, tokenizer and other metadata files to the cache directory; never a weight file. In
     * the store's own cache (no {@link LoadOptions#cacheDir}), that is the directory of this version's set
     * of metadata files ({@link MetadataCache}), which it then names as the set the next load starts on;
     * a file there that is none of the set's is removed, as it would sit beside them as if it were one.
     */
    public Materialized materializeMetadata() throws IOException {
        if (options.cacheDir() != null) {
            return materializeMetadata(options.cacheDir());
        }
        Materialized materialized = materializeMetadata(MetadataCache.setDir(manifest));
        Materialized cleaned = new Materialized(materialized.dir(), materialized.written(), materialized.unchanged(),
                removeOthers(materialized.dir()));
        MetadataCache.makeCurrent(materialized.dir());
        return cleaned;
    }

    /** Removes the files under {@code root} that are not this version's metadata files; hidden ones are writes in progress. */
    private int removeOthers(Path root) throws IOException {
        Set<Path> named = new HashSet<>();
        for (var file : manifest.files()) {
            named.add(root.resolve(file.path()).normalize());
        }
        List<Path> others;
        try (Stream<Path> walk = Files.walk(root)) {
            others = walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("."))
                    .filter(p -> !named.contains(p)).toList();
        }
        for (Path other : others) {
            Files.deleteIfExists(other);
        }
        return others.size();
    }

    /**
     * Where an earlier load left checkpoint {@code id}'s metadata files, known before the store opens, so
     * that an engine may start on them: the cache directory asked for, or the set the store's own cache on
     * this host wrote last; empty when there is none. Whether they are this version's, the load's own
     * {@link #materializeMetadata()} tells: an engine that read another directory than its
     * {@link Materialized#dir()}, or one it {@link Materialized#changed()}, read another version's files.
     */
    public static Optional<Path> metadataLeftBefore(CheckpointId id, LoadOptions options) throws IOException {
        Optional<Path> dir = options.cacheDir() != null ? Optional.of(options.cacheDir()) : MetadataCache.current(id);
        return dir.map(path -> path.toAbsolutePath().normalize());
    }

    /** As {@link #materializeMetadata()}, into {@code dir}; files whose size and hash already match are left alone. */
    public Materialized materializeMetadata(Path dir) throws IOException {
        int written = 0;
        int unchanged = 0;
        // Made even when the checkpoint has no metadata file: an engine is given the directory, and the cache cleaned in it.
        Path root = Files.createDirectories(dir.toAbsolutePath().normalize());
        for (StoredFile file : catalog.files(manifest)) {
            if (file.file().isWeight()) {
                continue;
            }
            Path target = root.resolve(file.path()).normalize();
            if (!target.startsWith(root)) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest path " + file.path() + " leaves " + root);
            }
            if (file.matches(target)) {
                unchanged++;
            } else {
                file.exportTo(target, Progress.NONE);
                written++;
            }
        }
        return new Materialized(root, written, unchanged, 0);
    }

    /** Every tensor by name, in file order, from the headers the open read and checked against the manifest. */
    public synchronized Map<String, Location> tensors() {
        if (tensors == null) {
            Map<String, Location> all = new LinkedHashMap<>();
            for (var file : manifest.files()) {
                ObjectReader object = weightFiles.get(file.path());
                if (object == null) {
                    continue;
                }
                SafetensorsHeader header = headers.get(file.path());
                Optional<TensorCrcTable> crcs = Optional.ofNullable(crcTables.get(file.path()));
                for (TensorInfo tensor : header.tensors()) {
                    all.put(tensor.name(), new Location(file.path(), object, header.dataStart(), tensor,
                            crcs.flatMap(c -> c.tensor(tensor.name()))));
                }
            }
            tensors = all;
        }
        return tensors;
    }

    /** Bytes of tensor data in the whole checkpoint. */
    public long tensorBytes() {
        return tensors().values().stream().mapToLong(l -> l.info().byteSize()).sum();
    }

    /** Every tensor, whole. */
    public TensorStream stream() throws IOException {
        return stream(0, 1, ShardPlan.replicateAll());
    }

    /** Rank {@code rank} of {@code worldSize}'s share of every tensor, as {@code plan} splits them. */
    public TensorStream stream(int rank, int worldSize, ShardPlan plan) throws IOException {
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "rank must be in 0.." + (worldSize - 1) + ": rank="
                    + rank + " worldSize=" + worldSize);
        }
        List<TensorStream.Item> items = new ArrayList<>();
        Map<String, OpenedLayout> laidOut = worldSize > 1 && options.columnLayouts() ? columnLayouts(worldSize) : Map.of();
        for (Location location : tensors().values()) {
            Split split = worldSize == 1 ? Split.REPLICATE : plan.split(location.info().name());
            ShardRead read = ShardRead.of(location.info(), split, rank, worldSize, plan.allowUnevenLastShard());
            ShardCheck check = ShardCheck.of(location, read);
            OpenedLayout layout = laidOut.get(location.file());
            Optional<TensorStream.Item> fromLayout = layout == null ? Optional.empty() : layout.item(location, split, read, check, rank);
            items.add(fromLayout.orElseGet(() -> new TensorStream.Item(location, split, read, check)));
        }
        for (TensorStream.Item item : items) {
            if (item.strided() == null) {
                mappedFile(item.location().object()); // every file's check starts now, all running at once
            }
        }
        for (int i = 0; i < items.size(); i++) {
            TensorStream.Item item = items.get(i);
            if (item.strided() != null) {
                continue; // a column layout's shard: read, never seen in place
            }
            Optional<MemorySegment> inPlace = mapped(item.location(), item.read());
            if (inPlace.isPresent()) {
                items.set(i, item.inPlace(inPlace.get()));
            }
        }
        return new TensorStream(store, items, options.bufferBytes(), buffers, failure -> giveUpLayouts(worldSize, failure));
    }

    /**
     * The files' column layouts for {@code worldSize} ranks, opened on first use under leases the close ends, by file path.
     * A layout that cannot be opened as the manifest records it (removed, or replaced since) is left out, with a warning:
     * the file itself still serves the same shards, strided.
     */
    private synchronized Map<String, OpenedLayout> columnLayouts(int worldSize) throws IOException {
        Map<String, OpenedLayout> opened = layouts.get(worldSize);
        if (opened != null) {
            return opened;
        }
        opened = new HashMap<>();
        for (StoredFile file : catalog.files(manifest)) {
            Optional<ColumnLayout> layout = file.file().columnLayout(worldSize);
            if (layout.isEmpty() || !weightFiles.containsKey(file.path())
                    || givenUpLayouts.getOrDefault(worldSize, Set.of()).contains(file.path())) {
                continue;
            }
            try {
                ObjectReader reader = file.openColumns(layout.get());
                layoutLeases.add(reader);
                opened.put(file.path(), new OpenedLayout(reader, layout.get(), layout.get().shardOffsets(headers.get(file.path()),
                        file.path() + " of " + manifest.checkpointId())));
            } catch (IOException e) {
                if (!OpenedLayout.notAsRecorded(e)) {
                    throw e;
                }
                log.warn("{}: reading its column shards strided from the file instead of its column layout for {} ranks: {}",
                        file.path(), worldSize, e.getMessage());
            }
        }
        // Never changed once stored: a stream reads it without the lock, and a give-up stores another.
        Map<String, OpenedLayout> stored = Map.copyOf(opened);
        layouts.put(worldSize, stored);
        return stored;
    }

    /** Has loads at {@code worldSize} read the shards of {@code path}'s column layout strided from the file, saying why. */
    private synchronized void giveUpLayout(int worldSize, String path, Exception why) {
        log.warn("{}: its column layout for {} ranks failed its check or could not be read; reading its column shards strided from"
                + " the file instead: {}", path, worldSize, why.getMessage());
        giveUp(worldSize, Set.of(path));
    }

    /**
     * Has loads at {@code worldSize} read every column shard strided from the files: a read from the layouts failed where
     * the files' read of the same shards succeeded ({@code why}), and which layout failed is not known.
     */
    private synchronized void giveUpLayouts(int worldSize, IOException why) {
        log.warn("a read of column shards from the column layouts for {} ranks failed, and the files served the same shards:"
                + " reading them strided from now on: {}", worldSize, why.getMessage());
        giveUp(worldSize, layouts.getOrDefault(worldSize, Map.of()).keySet());
    }

    /** Records the layouts of {@code paths} as given up at {@code worldSize}, and stores the opened ones without them. */
    private void giveUp(int worldSize, Set<String> paths) {
        givenUpLayouts.computeIfAbsent(worldSize, w -> new HashSet<>()).addAll(paths);
        Map<String, OpenedLayout> opened = layouts.get(worldSize);
        if (opened != null) {
            Map<String, OpenedLayout> rest = new HashMap<>(opened);
            rest.keySet().removeAll(paths);
            layouts.put(worldSize, Map.copyOf(rest));
        }
    }

    /** Streams rank {@code rank}'s share through {@code sink} and reports what it took. */
    public LoadReport load(int rank, int worldSize, ShardPlan plan, TensorSink sink, Progress progress) throws IOException {
        long checkpointBytes = tensorBytes();
        long before = bytesRead();
        long start = System.nanoTime();
        int count = 0;
        long share;
        int clientChecked;
        int seenInPlace;
        int fromColumnLayouts;
        try (TensorStream stream = stream(rank, worldSize, plan)) {
            share = stream.plannedBytes();
            clientChecked = stream.clientChecked();
            seenInPlace = stream.seenInPlace();
            progress.started(share);
            for (Tensor tensor; (tensor = stream.next()) != null; ) {
                count++;
                sink.accept(tensor);
                progress.advanced(tensor.data().byteSize());
            }
            fromColumnLayouts = stream.fromColumnLayouts();
        }
        return new LoadReport(rank, worldSize, count, bytesRead() - before, share, checkpointBytes, (System.nanoTime() - start) / 1e9,
                clientChecked, count - clientChecked - seenInPlace, seenInPlace, fromColumnLayouts, null);
    }

    /**
     * Reads every file of the checkpoint end to end through the checked read path and compares its
     * SHA-256 with the manifest's: the check that no one who could forge CRC32Cs (a node holding a
     * replica) can pass. One reused 64 MiB buffer, whatever the checkpoint's size.
     *
     * @throws CheckpointException CORRUPT naming the first file that differs
     */
    public FilesVerified verifyFiles(Progress progress) throws IOException {
        return verifyFiles(1, progress);
    }

    /**
     * As {@link #verifyFiles(Progress)}, and also the column layouts for {@code worldSize} ranks that a load at that size
     * reads ({@link LoadOptions#columnLayouts}), each against the SHA-256 the import recorded of it.
     */
    public FilesVerified verifyFiles(int worldSize, Progress progress) throws IOException {
        long start = System.nanoTime();
        List<StoredFile> files = catalog.files(manifest);
        List<StoredFile> laidOut = worldSize > 1 && options.columnLayouts()
                ? files.stream().filter(f -> f.file().columnLayout(worldSize).isPresent()).toList() : List.of();
        long bytes = manifest.totalBytes() + laidOut.stream().mapToLong(f -> f.file().columnLayout(worldSize).orElseThrow().size()).sum();
        progress.started(bytes);
        int verified = 0;
        // Shared: the client's worker threads fill the buffer in parallel pieces.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(VerifiedCopy.CHUNK, 64);
            for (StoredFile file : files) {
                file.verifiedCopy(VerifiedCopy.Target.discard(buffer), progress);
            }
            for (StoredFile file : laidOut) {
                try {
                    file.verifiedLayoutCopy(file.file().columnLayout(worldSize).orElseThrow(), VerifiedCopy.Target.discard(buffer),
                            progress);
                    verified++;
                } catch (IOException e) {
                    // Every file was just read whole, so a layout that cannot be read now (every copy of a slice out of
                    // reach) fails on its own: a load reads its shards from the file, as when its bytes are not as recorded.
                    if (!OpenedLayout.notAsRecorded(e) && !(e instanceof StoreException s && s.noCopyServed())) {
                        throw e;
                    }
                    giveUpLayout(worldSize, file.path(), e);
                }
            }
        }
        return new FilesVerified(files.size(), verified, bytes, (System.nanoTime() - start) / 1e9);
    }

    /**
     * Every tensor not seen in place ({@link #mapped}), whole, read ahead in file order for an engine
     * that asks for tensors one by one and keeps them: {@code batchBytes} per scatter-gather read,
     * {@code ahead} batches in flight.
     */
    public TensorPrefetcher prefetch(long batchBytes, int ahead) throws IOException {
        List<Location> toRead = new ArrayList<>();
        for (Location location : tensors().values()) {
            if (mappedFile(location.object()).isEmpty()) {
                toRead.add(location);
            }
        }
        return new TensorPrefetcher(store, toRead, batchBytes, ahead);
    }

    /**
     * {@code read}'s part of a tensor seen in place, read-only, when its file lies whole in pools
     * mapped on this host and the part is contiguous (no copy is made); else empty, and the caller
     * reads it. The segment is valid until this source closes, and fails loudly after. With
     * {@link LoadOptions#checkMapped()}, the file's checksum blocks have been checked before this
     * returns; a file that fails the check is read instead, which tries its other copies.
     */
    public Optional<MemorySegment> mapped(Location location, ShardRead read) throws IOException {
        return inPlace(location, read, true);
    }

    /**
     * As {@link #mapped}, without waiting for the file's check: for an engine that builds its model
     * while the checks run. Before any byte is used, {@link #awaitChecks()} must say every file passed.
     */
    public Optional<MemorySegment> mappedAhead(Location location, ShardRead read) throws IOException {
        return inPlace(location, read, false);
    }

    /**
     * Maps every weight file that can be seen in place (starting its check) and waits for all the
     * checks; returns the files whose check failed, which are read from now on, like any file that
     * cannot be mapped (and is not among them: {@link #mappedAhead} handed out no view of it). Views
     * of the files returned must not be used.
     */
    public List<String> awaitChecks() throws IOException {
        for (ObjectReader object : weightFiles.values()) {
            mappedFile(object);
        }
        List<String> failed = new ArrayList<>();
        for (Map.Entry<String, ObjectReader> file : weightFiles.entrySet()) {
            if (!checked(file.getValue()) && failedItsCheck(file.getValue())) {
                failed.add(file.getKey());
            }
        }
        return failed;
    }

    private synchronized boolean failedItsCheck(ObjectReader object) {
        return failedChecks.contains(object);
    }

    private Optional<MemorySegment> inPlace(Location location, ShardRead read, boolean checked) throws IOException {
        if (!read.contiguous()) {
            return Optional.empty();
        }
        Optional<MemorySegment> file = mappedFile(location.object());
        if (file.isEmpty() || checked && !checked(location.object())) {
            return Optional.empty();
        }
        bytesSeenInPlace.add(read.bytes());
        return Optional.of(file.get().asSlice(location.offsetOf(read), read.bytes()));
    }

    private synchronized Optional<MemorySegment> mappedFile(ObjectReader object) throws IOException {
        Optional<MemorySegment> known = mappedFiles.get(object);
        if (known != null) {
            return known;
        }
        Optional<MappedObject> mapped = mapIfLocal(object);
        if (mapped.isPresent()) {
            object.whenGone(() -> unmapUnder(object));
        }
        if (mapped.isPresent() && options.checkMapped()) {
            checks.put(object, checker.submit(() -> {
                mapped.get().check();
                return null;
            }));
        }
        Optional<MemorySegment> file = mapped.map(MappedObject::bytes);
        mappedFiles.put(object, file);
        return file;
    }

    /**
     * The object mapped from the pools on this host, when they hold it; empty too when they cannot be mapped (a pool file
     * replaced since this client first saw it, say), for the store, which tries every copy, to read it instead.
     */
    private Optional<MappedObject> mapIfLocal(ObjectReader object) throws InterruptedIOException {
        if (!views.scope().isAlive()) {
            // Unmapped since a file was removed under them: whatever is not mapped yet is read.
            return Optional.empty();
        }
        try {
            return object.mapReadOnly(views);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (ClosedByInterruptException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while mapping " + object.key());
        } catch (IOException e) {
            log.warn("{} has copies in pools on this host that cannot be mapped; reading it instead: {}", object.key(), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Unmaps every view this source handed out, once {@code object}, seen in place, was removed or replaced under them:
     * its room goes to other objects once its lease ends, and an engine, which keeps its views for the model's life, would
     * compute with their bytes. Its next access fails loudly instead (IllegalStateException).
     */
    private void unmapUnder(ObjectReader object) {
        log.error("{} of checkpoint {} was removed or replaced while this process held views of it in place: unmapping them, so"
                + " the engine's next access to its weights fails instead of reading another object's bytes", object.key(),
                manifest.checkpointId());
        synchronized (this) {
            checks.values().forEach(check -> check.cancel(true));
            try {
                if (views.scope().isAlive()) {
                    views.close();
                }
            } catch (IllegalStateException inUse) {
                // Held by a native call (a check's madvise, say) for a moment: the source's close unmaps them after it.
                log.error("could not unmap the views of checkpoint {} now: {}", manifest.checkpointId(), inUse.getMessage());
            }
        }
    }

    /** Waits for the file's check, if it has one; a file that failed it is read from now on. */
    private boolean checked(ObjectReader object) throws IOException {
        Future<Void> check;
        synchronized (this) {
            if (mappedFiles.getOrDefault(object, Optional.empty()).isEmpty()) {
                return false;
            }
            check = checks.get(object);
        }
        if (check == null) {
            return true;
        }
        try {
            Futures.awaitShared(check);
            return true;
        } catch (CancellationException e) {
            throw new IllegalStateException("checkpoint " + manifest.checkpointId() + " was closed, or a file of it removed, while "
                    + object.key() + " was being checked", e);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            // A copy that could not be checked here (a pool file shorter than its pieces, one no longer the pool named) is
            // no more to be trusted than one that failed: the read goes to the store, which tries every copy.
            boolean corrupt = e instanceof StoreException store && store.code() == StoreException.Code.CORRUPT;
            synchronized (this) {
                if (checks.remove(object) != null) {
                    log.warn("{}, seen in pools on this host, {}; reading it instead: {}", object.key(),
                            corrupt ? "failed its check" : "could not be checked there", e.getMessage());
                }
                failedChecks.add(object);
                mappedFiles.put(object, Optional.empty());
            }
            return false;
        }
    }

    /** Reads {@code read}'s part of one tensor into {@code dst}; random access, for engines that load tensor by tensor. */
    public void read(Location location, ShardRead read, MemorySegment dst) throws IOException {
        if (dst.byteSize() < read.bytes()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "destination of " + dst.byteSize() + " bytes is too small for "
                    + read.bytes() + " bytes of tensor " + location.info().name());
        }
        long start = location.offsetOf(read);
        ShardCheck check = ShardCheck.of(location, read);
        if (read.contiguous()) {
            MemorySegment bytes = dst.asSlice(0, read.bytes());
            location.object().read(new Range(start, read.bytes()), bytes);
            BatchCheck.verify(List.of(new BatchCheck.Part(check, 0, read.bytes(), location.object().object(), start, false)), bytes);
        } else {
            Stride rows = new Stride(start, read.blockLength(), read.stride(), read.count());
            if (check.byClient()) {
                ArrivedCrc arrived = new ArrivedCrc();
                location.object().readStrided(rows, dst, arrived);
                check.verifyCrc(arrived.crc32c(read.bytes()));
            } else {
                location.object().readStrided(rows, dst);
            }
        }
    }

    /**
     * Unmaps the files seen in place (a tensor kept past this fails loudly), ends the read leases,
     * frees the source's own buffers, and closes the store if the source opened it.
     */
    @Override
    public void close() {
        release();
        if (ownsStore) {
            store.close();
        }
    }

    /** Everything this source opened but the store, which a failed open leaves to whoever opened it. */
    private void release() {
        // A check still running serves no one now (a load that failed, an engine that stopped early): interrupted, it stops
        // after the slices it is reading, where it would read the rest of a file of many GB before a failure reached the user.
        // It still reads the views until then, so they are unmapped only once it has ended.
        synchronized (this) {
            checks.values().forEach(check -> check.cancel(true));
        }
        checker.close();
        synchronized (this) {
            if (views.scope().isAlive()) {
                views.close();
            }
        }
        // In one call to the master: one after another, each a call, they took a load of a checkpoint of 64 files 26 ms.
        List<ObjectReader> leased = new ArrayList<>(weightFiles.values());
        leased.addAll(tableLeases);
        synchronized (this) {
            leased.addAll(layoutLeases);
        }
        ObjectReader.closeAll(leased);
        if (ownsBuffers) {
            buffers.close();
        }
    }
}

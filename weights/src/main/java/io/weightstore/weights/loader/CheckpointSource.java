package io.weightstore.weights.loader;

import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CatalogKeys;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import io.weightstore.weights.Sha256;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.StoreRangeSource;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A READY checkpoint opened for loading: {@code weightstore://<checkpoint-id>}. Metadata files are
 * materialized to a local cache; weight files never touch local disk: their tensors stream from
 * the nodes into off-heap memory, the whole checkpoint or one tensor-parallel rank's share.
 */
public final class CheckpointSource implements AutoCloseable {
    public static final String SCHEME = "weightstore";

    /** Where a tensor is: its file, that file's data offset, and its header entry. */
    public record Location(String file, String key, long dataStart, TensorInfo info) {}

    /** What {@link #materializeMetadata} did. */
    public record Materialized(Path dir, int written, int unchanged) {}

    private final StoreClient store;
    private final boolean ownsStore;
    private final Manifest manifest;
    private final LoadOptions options;
    private final StreamBufferPool buffers;
    private final boolean ownsBuffers;
    private Map<String, Location> tensors;

    private CheckpointSource(StoreClient store, boolean ownsStore, Manifest manifest, LoadOptions options) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.manifest = manifest;
        this.options = options;
        this.ownsBuffers = options.bufferPool() == null;
        this.buffers = ownsBuffers ? new StreamBufferPool() : options.bufferPool();
    }

    /** Opens {@code weightstore://ID} on the store chosen by {@code options} (or the usual selection). */
    public static CheckpointSource open(URI uri, LoadOptions options) throws IOException {
        String id = checkpointId(uri);
        StoreClient store = StoreLocator.open(options.store(), options.connections());
        try {
            return new CheckpointSource(store, true, new Catalog(store).readyManifest(id), options);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Opens a checkpoint on a store the caller keeps open. */
    public static CheckpointSource open(StoreClient store, String id, LoadOptions options) throws IOException {
        return new CheckpointSource(store, false, new Catalog(store).readyManifest(CheckpointId.validate(id)), options);
    }

    /** The checkpoint id of a {@code weightstore://ID} URI. */
    public static String checkpointId(URI uri) throws CheckpointException {
        if (!SCHEME.equals(uri.getScheme()) || uri.getAuthority() == null || !(uri.getPath() == null || uri.getPath().isEmpty()
                || uri.getPath().equals("/")) || uri.getQuery() != null) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "expected weightstore://<checkpoint-id>, found " + uri);
        }
        return CheckpointId.validate(uri.getAuthority());
    }

    public static boolean isStoreUri(String text) {
        return text.startsWith(SCHEME + "://");
    }

    public Manifest manifest() {
        return manifest;
    }

    public String checkpointId() {
        return manifest.checkpointId();
    }

    public StoreClient store() {
        return store;
    }

    /** Object bytes read from the store so far through this source's client. */
    public long bytesRead() {
        return store.bytesRead();
    }

    /** Writes config, tokenizer and other metadata files to the cache directory; never a weight file. */
    public Materialized materializeMetadata() throws IOException {
        Path dir = options.cacheDir() != null ? options.cacheDir()
                : WeightstoreHome.resolve().resolve("cache").resolve(manifest.checkpointId());
        return materializeMetadata(dir);
    }

    /** As {@link #materializeMetadata()}, into {@code dir}; files whose size and hash already match are left alone. */
    public Materialized materializeMetadata(Path dir) throws IOException {
        int written = 0;
        int unchanged = 0;
        Path root = dir.toAbsolutePath().normalize();
        for (ManifestFile file : manifest.files()) {
            if (file.isWeight()) {
                continue;
            }
            Path target = root.resolve(file.path()).normalize();
            if (!target.startsWith(root)) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest path " + file.path() + " leaves " + root);
            }
            if (Files.isRegularFile(target) && Files.size(target) == file.size()
                    && Sha256.of(MemorySegment.ofArray(Files.readAllBytes(target))).equals(file.sha256())) {
                unchanged++;
                continue;
            }
            byte[] bytes = store.readAll(CatalogKeys.file(manifest.checkpointId(), file.path()));
            if (!Sha256.of(MemorySegment.ofArray(bytes)).equals(file.sha256())) {
                throw new CheckpointException(CheckpointException.Code.CORRUPT, file.path() + " of " + manifest.checkpointId()
                        + " does not match its manifest hash");
            }
            Files.createDirectories(target.getParent());
            Path partial = target.resolveSibling(target.getFileName() + ".partial");
            Files.write(partial, bytes);
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            written++;
        }
        return new Materialized(root, written, unchanged);
    }

    /** Every tensor by name, in file order, from the headers read by range and validated. */
    public synchronized Map<String, Location> tensors() throws IOException {
        if (tensors == null) {
            Map<String, Location> all = new LinkedHashMap<>();
            for (ManifestFile file : manifest.files()) {
                if (file.headerLength() == null) {
                    continue;
                }
                String key = CatalogKeys.file(manifest.checkpointId(), file.path());
                SafetensorsHeader header;
                try {
                    header = SafetensorsHeaderParser.read(new StoreRangeSource(store, key, file.size()));
                } catch (SafetensorsFormatException e) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored " + file.path() + " of "
                            + manifest.checkpointId() + " has an invalid header: " + e.getMessage(), e);
                }
                if (header.headerLength() != file.headerLength() || header.tensors().size() != file.tensorCount()) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, "stored header of " + file.path()
                            + " does not match the manifest");
                }
                for (TensorInfo tensor : header.tensors()) {
                    all.put(tensor.name(), new Location(file.path(), key, header.dataStart(), tensor));
                }
            }
            tensors = all;
        }
        return tensors;
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
        for (Location location : tensors().values()) {
            Split split = worldSize == 1 ? Split.REPLICATE : plan.split(location.info().name());
            ShardRead read = ShardRead.of(location.info(), split, rank, worldSize, plan.allowUnevenLastShard());
            items.add(new TensorStream.Item(location.file(), location.key(), location.dataStart(), location.info(), split, read));
        }
        return new TensorStream(store, items, options.bufferBytes(), buffers);
    }

    /** Reads {@code read}'s part of one tensor into {@code dst}; random access, for engines that load tensor by tensor. */
    public void read(Location location, ShardRead read, MemorySegment dst) throws IOException {
        long start = location.dataStart() + location.info().begin() + read.offset();
        if (read.contiguous()) {
            store.readInto(location.key(), List.of(new io.weightstore.store.Range(start, read.bytes())), dst);
        } else {
            store.readStrided(location.key(), start, read.blockLength(), read.stride(), read.count(), dst);
        }
    }

    @Override
    public void close() {
        if (ownsBuffers) {
            buffers.close();
        }
        store.releaseLeases();
        if (ownsStore) {
            store.close();
        }
    }
}

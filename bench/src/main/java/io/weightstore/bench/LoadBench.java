package io.weightstore.bench;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.FileKind;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.store.wire.MacTransport;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.ColumnLayoutPlan;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.StoredFile;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.LoadReport;
import io.weightstore.weights.loader.ShardPlan;
import io.weightstore.weights.loader.Split;
import io.weightstore.weights.loader.StreamBufferPool;
import io.weightstore.weights.loader.TensorPrefetcher;
import io.weightstore.weights.loader.TensorStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

/**
 * Loading a whole synthetic checkpoint into off-heap memory: through the loader from a three-node
 * loopback cluster, through the loader over the same-host path, from the same files on local disk
 * (FileChannel reads and mmap copies, as engines do), and at TP=4 with every rank; beside the
 * store's raw read throughput (whole objects, no loader) and the machine's ceilings, all in one run.
 * Each loader path is also timed, in turns with it, without the client's tensor CRC checks, so the
 * checks' cost is their ratio.
 */
public final class LoadBench {
    private static final CheckpointId ID = new CheckpointId("bench");
    private static final int CONNECTIONS = 8;
    /** The ranks of every TP row. */
    private static final int RANKS = 4;
    /** The plan an engine's TP=4 load of a Llama checkpoint takes: a third of the bench checkpoint's bytes cut by columns. */
    private static final ShardPlan LLAMA = ShardPlan.preset("llama");
    /**
     * Every matrix cut by rows (each rank's part one range of its file) or every one by columns (each
     * rank's part a strided read): where a TP load's time goes between the two kinds of shard.
     */
    private static final ShardPlan ROWS_ONLY = everyMatrix(Split.DIM0);
    private static final ShardPlan COLUMNS_ONLY = everyMatrix(Split.DIM1);
    /** nginx serves the files to ranges of this size, as HTTP and S3 loaders fetch in large pieces. */
    private static final long NGINX_RANGE = 64L << 20;

    /** The measurements, per-rank bytes of the TP=4 run, and notes on paths that could not be measured. */
    public record Report(long checkpointBytes, int runs, Measurement memcpy, Measurement rawSocket, Measurement rawStore,
            List<Measurement> paths, List<Long> tpBytesPerRank, List<String> notes) {}

    private LoadBench() {}

    /**
     * Synthesizes (or reuses) a checkpoint of about {@code size} bytes in {@code sourceDir}, then
     * measures; with {@code peers}, also nginx (HTTP Range) and Redis (64 MiB chunks) when installed,
     * fetched over {@code peerConnections} parallel connections.
     */
    public static Report run(Path sourceDir, Path poolDir, long size, int runs, boolean peers, int peerConnections) throws Exception {
        Path source = SyntheticSource.of(sourceDir, size);
        CheckpointDirectory directory = CheckpointDirectory.read(source);
        List<CheckpointFile> weights = directory.files(FileKind.WEIGHT);
        long weightBytes = weights.stream().mapToLong(CheckpointFile::size).sum();
        long largest = weights.stream().mapToLong(CheckpointFile::size).max().orElse(1);
        Path work = Files.createTempDirectory(poolDir, "ws-load-bench-");
        // Room for the files and their column layouts for the TP=4 rows (Llama's o_proj and down_proj once more).
        try (Arena arena = Arena.ofShared(); BenchCluster cluster = new BenchCluster(work, directory.totalBytes() * 3 / 2)) {
            cluster.importCheckpoint(ID, source, new ColumnLayoutPlan(List.of(RANKS), LLAMA));
            MemorySegment whole = arena.allocate(largest, 64);
            whole.fill((byte) 0);
            CheckpointFile first = weights.getFirst();
            Measurement memcpy;
            Measurement rawSocket;
            Measurement rawStore;
            Measurement mmap;
            List<Measurement> paths = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            // A tmpfs in 4 KiB pages costs the nodes' sendfile and the same-host path a lookup per page.
            notes.add("pools in " + poolDir + " (" + PoolPages.of(poolDir) + ")");
            List<Long> perRank = new ArrayList<>();
            // The paths the loader's targets compare are timed in turns, so drift hits them alike (same host against mmap,
            // TP=4 against the loopback loader too). TP=4 keeps a client and stream buffers across runs, as the loopback rows
            // keep theirs: the goal compares the two loads, not one of them also the first touch of fresh buffers per run.
            try (Ceilings.RawSocket raw = Ceilings.rawSocket(source.resolve(first.path()), whole.asSlice(0, first.size()), 4);
                    StoreClient rawClient = cluster.client(false, CONNECTIONS);
                    RawObjects rawObjects = RawObjects.open(rawClient);
                    StoreClient loopbackClient = cluster.client(false, CONNECTIONS);
                    StoreClient sameHostClient = cluster.client(true, CONNECTIONS);
                    StoreClient tpClient = cluster.client(false, CONNECTIONS);
                    StreamBufferPool loopbackBuffers = new StreamBufferPool();
                    StreamBufferPool sameHostBuffers = new StreamBufferPool();
                    StreamBufferPool tpBuffers = new StreamBufferPool()) {
                List<Measurement> measured = Measurement.interleaved(runs, List.of(
                        Ceilings.memcpy(arena, Math.min(largest, 1L << 30)),
                        raw.timed(),
                        new Measurement.Timed("store raw read", "whole objects, 3 nodes, " + CONNECTIONS + " conn", weightBytes,
                                () -> rawObjects.readEach(whole)),
                        loader(loopbackClient, loopbackBuffers, "loader, loopback", "1 rank, 3 nodes, " + CONNECTIONS + " conn",
                                weightBytes, true),
                        loader(loopbackClient, loopbackBuffers, "loader, loopback, no tensor checks", "as above, CRC tables not used",
                                weightBytes, false),
                        loader(sameHostClient, sameHostBuffers, "loader, same host", "1 rank, pools mapped in place, checked",
                                weightBytes, true),
                        new Measurement.Timed("loader, TP=4 all ranks", "4 ranks one after another, loopback, column layouts",
                                weightBytes, () -> loadAllRanks(tpClient, tpBuffers, LLAMA, true, true, perRank)),
                        new Measurement.Timed("loader, TP=4 all ranks, strided columns", "as above, column shards read strided from"
                                + " the files", weightBytes, () -> loadAllRanks(tpClient, tpBuffers, LLAMA, true, false, new ArrayList<>())),
                        new Measurement.Timed("loader, TP=4 all ranks, no tensor checks", "as the first, CRC tables not used",
                                weightBytes, () -> loadAllRanks(tpClient, tpBuffers, LLAMA, false, true, new ArrayList<>())),
                        new Measurement.Timed("loader, TP=4 all ranks, row shards only", "every matrix cut by rows",
                                weightBytes, () -> loadAllRanks(tpClient, tpBuffers, ROWS_ONLY, true, true, new ArrayList<>())),
                        new Measurement.Timed("loader, TP=4 all ranks, column shards only", "every matrix cut by columns, strided",
                                weightBytes, () -> loadAllRanks(tpClient, tpBuffers, COLUMNS_ONLY, true, false, new ArrayList<>())),
                        new Measurement.Timed("loader, TP=4 all ranks at once", "4 ranks on 4 threads, one source, loopback, column layouts",
                                weightBytes, () -> loadAllRanksAtOnce(tpClient, tpBuffers)),
                        new Measurement.Timed("local page cache, mmap", "copy out of a mapping", weightBytes,
                                () -> copyFromMaps(source, weights, whole))));
                memcpy = measured.get(0);
                rawSocket = measured.get(1);
                rawStore = measured.get(2);
                paths.addAll(measured.subList(3, measured.size() - 1));
                mmap = measured.getLast();
            }
            if (PageCache.canDrop()) {
                paths.add(Measurement.of("local disk, cold", "FileChannel into off-heap, page cache dropped", weightBytes, runs,
                        PageCache::drop, () -> readFiles(source, weights, whole)));
            } else {
                notes.add("local disk, cold: not measured (cannot write /proc/sys/vm/drop_caches; needs root)");
            }
            paths.add(Measurement.of("local page cache, FileChannel", "files already in memory, 64 MiB reads", weightBytes, runs,
                    () -> readFiles(source, weights, whole)));
            paths.add(mmap);
            // Fresh memory per run, as an engine's own: collected before each run, so runs do not pile up the last ones' memory.
            try (StoreClient prefetchClient = cluster.client(false, CONNECTIONS)) {
                paths.add(Measurement.of("loader, loopback, whole tensors", "as Jlama takes them, each kept in memory of its own, "
                        + CONNECTIONS + " conn", weightBytes, runs, LoadBench::collect, () -> prefetchAll(prefetchClient)));
            }
            paths.add(secureLoopback(work, directory, DataPlaneProtection.TLS, "data plane in TLS 1.3", weightBytes, runs));
            paths.add(secureLoopback(work, directory, DataPlaneProtection.MAC, "TLS handshake, then " + MacTransport.tagsProposedHere() + "-tagged chunks in clear",
                    weightBytes, runs));
            if (peers) {
                measurePeers(source, weights, work, whole, weightBytes, runs, peerConnections, paths, notes);
            }
            return new Report(weightBytes, runs, memcpy, rawSocket, rawStore, paths, perRank.subList(Math.max(0, perRank.size() - 4),
                    perRank.size()), notes);
        } finally {
            WorkDirectory.delete(work);
        }
    }

    /**
     * The loopback loader against a secure cluster of its own, made, filled and dropped here, so
     * that no more than two copies of the checkpoint are held at once.
     */
    private static Measurement secureLoopback(Path work, CheckpointDirectory checkpoint, DataPlaneProtection protection,
            String detail, long weightBytes, int runs) throws Exception {
        Path dir = work.resolve(protection.name().toLowerCase(Locale.ROOT));
        try (BenchCluster secure = new BenchCluster(dir, checkpoint.totalBytes(), Optional.of(protection));
                StreamBufferPool buffers = new StreamBufferPool()) {
            secure.importCheckpoint(ID, checkpoint.root());
            try (StoreClient client = secure.client(false, CONNECTIONS)) {
                return Measurement.interleaved(runs, List.of(loader(client, buffers, "loader, loopback, " + protection.name(),
                        detail + ", 3 nodes, " + CONNECTIONS + " conn", weightBytes, true))).getFirst();
            }
        } finally {
            WorkDirectory.delete(dir);
        }
    }

    private static void measurePeers(Path source, List<CheckpointFile> weights, Path work, MemorySegment dst, long weightBytes,
            int runs, int connections, List<Measurement> paths, List<String> notes) throws Exception {
        List<String> names = weights.stream().map(CheckpointFile::path).toList();
        List<Long> sizes = weights.stream().map(CheckpointFile::size).toList();
        CongestionTerms.unequal("nginx and Redis", "the store and the raw socket").ifPresent(notes::add);
        try (NginxPeer nginx = NginxPeer.start(source, work); RangedGets httpClient = new RangedGets(connections, NGINX_RANGE);
                SocketRangedGets sockets = new SocketRangedGets(connections, NGINX_RANGE)) {
            if (nginx == null) {
                notes.add("nginx not measured: not installed (run bench/install-peers.sh)");
            } else {
                // Three clients in turns, so that nginx is judged by the best of them, not by Java's HttpClient.
                List<Measurement.Timed> clients = new ArrayList<>(List.of(
                        new Measurement.Timed("nginx, Java HttpClient", "64 MiB ranges into off-heap, " + connections + " conn",
                                weightBytes, () -> httpClient.fetch(nginx.baseUrl(), names, sizes, dst)),
                        new Measurement.Timed("nginx, keep-alive sockets", "64 MiB ranges read into off-heap, " + connections
                                + " conn", weightBytes, () -> sockets.fetch(nginx.baseUrl(), names, sizes, dst))));
                CurlRangedGets curl = CurlRangedGets.find(connections, NGINX_RANGE);
                if (curl == null) {
                    notes.add("nginx with curl not measured: curl not installed");
                } else {
                    clients.add(new Measurement.Timed("nginx, curl", connections + " curl processes, 64 MiB ranges to /dev/null",
                            weightBytes, () -> curl.fetch(nginx.baseUrl(), names, sizes)));
                }
                paths.addAll(Measurement.interleaved(runs, clients));
            }
        }
        try (RedisChunkLoad redis = RedisChunkLoad.start(work, connections)) {
            if (redis == null) {
                notes.add("Redis not measured: not installed (run bench/install-peers.sh)");
            } else {
                redis.store(source, names);
                paths.add(Measurement.of("Redis, chunk GETs", "64 MiB chunks, " + redis.connections() + " conn", weightBytes, runs,
                        () -> redis.fetch(names, sizes, dst)));
            }
        }
    }

    /**
     * Opens the checkpoint and streams every tensor, as an engine's load does. The stream buffers
     * come from {@code buffers}, as in a process that loads again, so the runs after the warm-up
     * time the load and not the first touch of 512 MiB of fresh memory, as the raw read's
     * destination is not fresh either.
     */
    private static Measurement.Timed loader(StoreClient client, StreamBufferPool buffers, String path, String detail, long bytes,
            boolean tensorChecks) {
        return new Measurement.Timed(path, detail, bytes, () -> {
            try (CheckpointSource checkpoint = CheckpointSource.open(client, ID, LoadOptions.defaults().withBufferPool(buffers)
                    .withTensorChecks(tensorChecks));
                    TensorStream stream = checkpoint.stream()) {
                while (stream.next() != null) {
                    // The engine's work would go here; the bench measures delivery only.
                }
            }
        });
    }

    /**
     * Every tensor whole, in memory each keeps, through the prefetcher Jlama's loader reads a model
     * over sockets with (its batch size and batches ahead).
     */
    private static void prefetchAll(StoreClient client) throws IOException {
        try (CheckpointSource checkpoint = CheckpointSource.open(client, ID, LoadOptions.defaults());
                TensorPrefetcher tensors = checkpoint.prefetch(256L << 20, 4)) {
            for (String name : checkpoint.tensors().keySet()) {
                tensors.take(name).orElseThrow();
            }
        }
    }

    /** Lets the collector find the last run's tensors, and their memory go back to the kernel. */
    private static void collect() throws InterruptedException {
        System.gc();
        Thread.sleep(200);
    }

    /** The checkpoint's weight files opened once, as a loader holds them open while it reads them. */
    private record RawObjects(List<ObjectReader> files) implements AutoCloseable {
        static RawObjects open(StoreClient client) throws IOException {
            Catalog catalog = new Catalog(client);
            Manifest manifest = catalog.readyManifest(ID);
            List<ObjectReader> files = new ArrayList<>();
            for (StoredFile file : catalog.files(manifest)) {
                if (file.file().isWeight()) {
                    files.add(file.open());
                }
            }
            return new RawObjects(files);
        }

        /** Each whole file into {@code dst}, one after another. */
        void readEach(MemorySegment dst) throws IOException {
            for (ObjectReader file : files) {
                file.read(new Range(0, file.size()), dst.asSlice(0, file.size()));
            }
        }

        @Override
        public void close() {
            files.forEach(ObjectReader::close);
        }
    }

    private static ShardPlan everyMatrix(Split split) {
        return new ShardPlan(List.of(new ShardPlan.Rule(Pattern.compile(".*norm.*"), Split.REPLICATE)), split, false);
    }

    /** The ranks of a TP=4 load by {@code plan}, one after another. */
    private static void loadAllRanks(StoreClient client, StreamBufferPool buffers, ShardPlan plan, boolean tensorChecks,
            boolean columnLayouts, List<Long> perRank) throws IOException {
        try (CheckpointSource checkpoint = CheckpointSource.open(client, ID, LoadOptions.defaults().withBufferPool(buffers)
                .withTensorChecks(tensorChecks).withColumnLayouts(columnLayouts))) {
            checkpoint.tensors();
            for (int rank = 0; rank < RANKS; rank++) {
                perRank.add(checkpoint.load(rank, RANKS, plan, tensor -> {}, Progress.NONE).bytesRead());
            }
        }
    }

    /** The ranks of one process's tensor-parallel load, each on a thread of its own, as an engine driving several devices does. */
    private static void loadAllRanksAtOnce(StoreClient client, StreamBufferPool buffers) throws Exception {
        try (CheckpointSource checkpoint = CheckpointSource.open(client, ID, LoadOptions.defaults().withBufferPool(buffers))) {
            checkpoint.tensors();
            List<Future<LoadReport>> ranks = new ArrayList<>();
            try (ExecutorService threads = Executors.newFixedThreadPool(RANKS)) {
                for (int rank = 0; rank < RANKS; rank++) {
                    int r = rank;
                    ranks.add(threads.submit(() -> checkpoint.load(r, RANKS, LLAMA, tensor -> {},
                            Progress.NONE)));
                }
            }
            for (Future<LoadReport> rank : ranks) {
                rank.get();
            }
        }
    }

    private static void readFiles(Path dir, List<CheckpointFile> files, MemorySegment dst) throws IOException {
        for (CheckpointFile file : files) {
            try (FileChannel channel = FileChannel.open(dir.resolve(file.path()), StandardOpenOption.READ)) {
                long position = 0;
                while (position < file.size()) {
                    var buffer = dst.asSlice(position, Math.min(64L << 20, file.size() - position)).asByteBuffer();
                    while (buffer.hasRemaining()) {
                        int n = channel.read(buffer, position);
                        if (n < 0) {
                            throw new IOException("file shrank: " + file.path());
                        }
                        position += n;
                    }
                }
            }
        }
    }

    private static void copyFromMaps(Path dir, List<CheckpointFile> files, MemorySegment dst) throws IOException {
        for (CheckpointFile file : files) {
            try (FileChannel channel = FileChannel.open(dir.resolve(file.path()), StandardOpenOption.READ);
                    Arena arena = Arena.ofConfined()) {
                MemorySegment.copy(channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena), 0, dst, 0, file.size());
            }
        }
    }
}

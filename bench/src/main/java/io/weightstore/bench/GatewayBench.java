package io.weightstore.bench;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.FileKind;
import io.weightstore.gateway.Access;
import io.weightstore.gateway.GatewayConfig;
import io.weightstore.gateway.S3Gateway;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.CheckpointId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The S3 gateway beside nginx serving the same files, fetched by one and the same client, with two
 * clients: parallel HTTP Range requests over kept-alive sockets straight into off-heap memory, as
 * S3-style weight streamers fetch (in this process, beside the gateway), and curl processes (outside
 * it, writing to /dev/null). The checkpoint is imported into a three-node loopback cluster; one
 * gateway reads it over the same-host path (the nodes' pool files sent with sendfile, as when the
 * gateway runs on a node's host) and one over the nodes' sockets, and nginx serves the source
 * directory (in the page cache after the warm-up) with sendfile. The paths are timed in turns, so
 * the drift of a shared machine hits them alike.
 */
public final class GatewayBench {
    private static final CheckpointId ID = new CheckpointId("bench");
    /** The gateway's store connections: the CLI's default. */
    private static final int STORE_CONNECTIONS = 4;
    /**
     * GETs each server answers before any path is timed, in small ranges: about what the JIT needs to
     * have compiled a gateway's request path, as a gateway that has been serving for a while has.
     * Measured on two cores: 8 MiB GETs from a gateway that had answered 1,500 of them cost a third
     * more CPU than from one that had answered 6,000; after that, the gateway and nginx were level.
     */
    private static final int WARM_UP_GETS = 8_192;
    private static final long WARM_UP_RANGE_BYTES = 32 << 10;

    /** The measurements, and notes: paths that could not be measured, and the read leases each gateway took. */
    public record Report(long checkpointBytes, int runs, int connections, long rangeBytes, List<Measured> paths, List<String> notes) {}

    /**
     * One path's throughput with one client, the path of the same client that nginx is, and the CPU
     * it cost per GB moved: this process's (the socket client, and for the gateway its store client,
     * master and nodes too) plus nginx's own for nginx's path, over every run including the warm-up.
     */
    public record Measured(Measurement throughput, String nginxPath, double cpuSecondsPerGb) {}

    /** How a path fetches a base URL's files: one client against one server. */
    private interface Fetch {
        void from(String baseUrl) throws Exception;
    }

    /** CPU seconds a path used, over all its runs. */
    private static final class CpuMeter {
        private final List<Long> pids;
        private double seconds;
        private int runs;

        CpuMeter(List<Long> pids) {
            this.pids = pids;
        }

        Measurement.Work around(Measurement.Work work) {
            return () -> {
                double before = ProcessCpu.seconds(pids);
                work.run();
                seconds += ProcessCpu.seconds(pids) - before;
                runs++;
            };
        }

        double secondsPerGb(long bytes) {
            return seconds / runs / (bytes / 1e9);
        }
    }

    private GatewayBench() {}

    public static Report run(Path sourceDir, Path poolDir, long size, int runs, int connections, long rangeBytes, int chunkBytes)
            throws Exception {
        Path source = SyntheticSource.of(sourceDir, size);
        CheckpointDirectory directory = CheckpointDirectory.read(source);
        List<CheckpointFile> weights = directory.files(FileKind.WEIGHT);
        List<String> names = weights.stream().map(CheckpointFile::path).toList();
        List<Long> sizes = weights.stream().map(CheckpointFile::size).toList();
        long weightBytes = sizes.stream().mapToLong(Long::longValue).sum();
        long largest = sizes.stream().mapToLong(Long::longValue).max().orElse(1);
        Path work = Files.createTempDirectory(poolDir, "ws-gateway-bench-");
        try (Arena arena = Arena.ofShared(); BenchCluster cluster = new BenchCluster(work, directory.totalBytes())) {
            cluster.importCheckpoint(ID, source);
            MemorySegment dst = arena.allocate(largest, 64);
            dst.fill((byte) 0);
            List<String> notes = new ArrayList<>();
            String ranges = ByteSizes.format(rangeBytes) + " ranges, " + connections + " conn";
            GatewayConfig defaults = GatewayConfig.defaults(0, Access.anonymousOnly());
            GatewayConfig config = new GatewayConfig(defaults.host(), 0, defaults.bucket(), defaults.access(), defaults.maxConcurrent(),
                    defaults.maxWaiting(), chunkBytes, defaults.idleTimeout(), defaults.requestHeadTimeout(),
                    defaults.sendTimeout(), defaults.maxConnections(), defaults.congestionControl());
            try (SocketRangedGets sockets = new SocketRangedGets(connections, rangeBytes);
                    NginxPeer nginx = NginxPeer.start(source, work);
                    StoreClient sameHostStore = cluster.client(true, STORE_CONNECTIONS);
                    S3Gateway sameHost = S3Gateway.start(config, sameHostStore);
                    StoreClient loopbackStore = cluster.client(false, STORE_CONNECTIONS);
                    S3Gateway loopback = S3Gateway.start(config, loopbackStore)) {
                List<Measurement.Timed> paths = new ArrayList<>();
                List<CpuMeter> meters = new ArrayList<>();
                List<String> nginxPaths = new ArrayList<>();
                List<Long> self = List.of(ProcessHandle.current().pid());
                CurlRangedGets curl = CurlRangedGets.find(connections, rangeBytes);
                if (nginx == null) {
                    notes.add("nginx not measured: not installed (run bench/install-peers.sh)");
                }
                if (curl == null) {
                    notes.add("the curl client not measured: curl is not installed");
                }
                List<String> clients = curl == null ? List.of("sockets") : List.of("sockets", "curl");
                for (String clientName : clients) {
                    Fetch fetch = clientName.equals("curl") ? base -> curl.fetch(base, names, sizes)
                            : base -> sockets.fetch(base, names, sizes, dst);
                    String client = clientName.equals("curl") ? connections + " curl processes, " + ByteSizes.format(rangeBytes)
                            + " ranges to /dev/null" : ranges + " into off-heap memory";
                    String nginxPath = "nginx, " + clientName;
                    if (nginx != null) {
                        List<Long> withNginx = new ArrayList<>(self);
                        withNginx.addAll(nginx.pids());
                        meters.add(new CpuMeter(withNginx));
                        nginxPaths.add(nginxPath);
                        paths.add(new Measurement.Timed(nginxPath, "source files, sendfile; " + client, weightBytes,
                                meters.getLast().around(() -> fetch.from(nginx.baseUrl()))));
                    }
                    meters.add(new CpuMeter(self));
                    nginxPaths.add(nginxPath);
                    paths.add(new Measurement.Timed("gateway, same host, " + clientName, "pool files, sendfile; " + client, weightBytes,
                            meters.getLast().around(() -> fetch.from(bucketUrl(sameHost)))));
                    meters.add(new CpuMeter(self));
                    nginxPaths.add(nginxPath);
                    paths.add(new Measurement.Timed("gateway, loopback nodes, " + clientName, "3 nodes over sockets, "
                            + ByteSizes.format(chunkBytes) + " chunks; " + client, weightBytes,
                            meters.getLast().around(() -> fetch.from(bucketUrl(loopback)))));
                }
                List<String> servers = new ArrayList<>(List.of(bucketUrl(sameHost), bucketUrl(loopback)));
                if (nginx != null) {
                    servers.add(nginx.baseUrl());
                }
                for (String server : servers) {
                    warmUp(server, names, sizes, dst, connections);
                }
                notes.add("before timing, each server answered " + WARM_UP_GETS + " GETs of " + ByteSizes.format(WARM_UP_RANGE_BYTES)
                        + " (the JIT's warm-up)");
                List<Measurement> measured = Measurement.interleaved(runs, paths);
                notes.add(GatewayLeaseCount.of(sameHost).describe("gateway, same host"));
                notes.add(GatewayLeaseCount.of(loopback).describe("gateway, loopback nodes"));
                notes.add("pools in " + poolDir + " (" + PoolPages.of(poolDir) + ")");
                CongestionTerms.unequal("nginx", "the gateways and the nodes").ifPresent(notes::add);
                List<Measured> results = new ArrayList<>();
                for (int i = 0; i < measured.size(); i++) {
                    results.add(new Measured(measured.get(i), nginxPaths.get(i), meters.get(i).secondsPerGb(weightBytes)));
                }
                return new Report(weightBytes, runs, connections, rangeBytes, results, notes);
            }
        } finally {
            WorkDirectory.delete(work);
        }
    }

    /** {@link #WARM_UP_GETS} small GETs of the files' first bytes from {@code baseUrl}. */
    private static void warmUp(String baseUrl, List<String> names, List<Long> sizes, MemorySegment dst, int connections) throws Exception {
        long perFile = WARM_UP_GETS / names.size() * WARM_UP_RANGE_BYTES;
        try (SocketRangedGets small = new SocketRangedGets(connections, WARM_UP_RANGE_BYTES)) {
            small.fetch(baseUrl, names, sizes.stream().map(size -> Math.min(size, perFile)).toList(), dst);
        }
    }

    private static String bucketUrl(S3Gateway gateway) {
        return "http://127.0.0.1:" + gateway.port() + "/" + GatewayConfig.DEFAULT_BUCKET + "/" + ID;
    }
}

package io.weightstore.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.weightstore.bench.NginxConfig;
import io.weightstore.bench.WorkDirectory;
import io.weightstore.weights.ByteSizes;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code bench cluster}: a cluster on the host bed, where each host's NIC, not the CPU, is the limit.
 *
 * <p>Host 0 runs the master and, for the single-origin comparison, nginx; hosts 1..K run storage
 * nodes (0..K-1 when {@code --hosts} is K + M: the master and nginx then share the first node's
 * host); the next M hosts run loaders: the {@code weightstore} CLI in processes of their own. Each
 * run has these phases, timed on the wire by {@link PhaseRunner}:
 * <ul>
 *   <li>raw: M raw TCP streams at once, loader host j reading from node host j mod K (the bed's own ceiling);
 *   <li>fan-in: M loaders loading the whole checkpoint at once from the K node hosts;
 *   <li>nginx: M {@code curl}s fetching the same files at once from nginx on host 0, in parallel
 *       64 MiB HTTP Range requests, as HTTP and S3 loaders fetch from a single origin;
 *   <li>TP (with {@code --tp-size T > 1}): T loaders on T hosts, each loading one tensor-parallel rank;
 *   <li>same host and remote: one loader alone on the first node's host (it maps that node's pool), then one
 *       alone on the first loader host.
 * </ul>
 */
public final class ClusterBench {
    static final String CHECKPOINT_ID = "cluster-bench";
    static final int NGINX_PORT = 8080;
    static final int PROBE_PORT = 5001;
    static final long RANGE_BYTES = 64L << 20;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /**
     * What to run: {@code hosts} at least 1 + {@code nodes} + {@code loaders}; {@code nicRate} as
     * {@code tc} takes it; {@code prefix} names the bed's namespaces.
     */
    public record Settings(int hosts, int nodes, int loaders, String nicRate, double latencyMillis, String size, int replicas, int tpSize,
            int runs, int connections, boolean barrier, String prefix, Path out) {
        public Settings {
            for (var n : Map.of("--nodes", nodes, "--loaders", loaders, "--replicas", replicas, "--tp-size", tpSize, "--runs", runs,
                    "--connections", connections).entrySet()) {
                if (n.getValue() < 1) {
                    throw new IllegalArgumentException(n.getKey() + " must be >= 1, found " + n.getValue());
                }
            }
            if (hosts < nodes + loaders) {
                throw new IllegalArgumentException("--hosts " + hosts + " is too few for --nodes " + nodes + " and --loaders " + loaders
                        + " on hosts of their own");
            }
            if (replicas > nodes) {
                throw new IllegalArgumentException("--replicas " + replicas + " exceeds --nodes " + nodes);
            }
            if (tpSize > loaders) {
                throw new IllegalArgumentException("--tp-size " + tpSize + " needs as many loader hosts (--loaders " + loaders + ")");
            }
            if (!(latencyMillis >= 0) || Math.rint(latencyMillis * 1000) != latencyMillis * 1000) {
                throw new IllegalArgumentException("--latency must be >= 0 ms in steps of 0.001 ms, found "
                        + BigDecimal.valueOf(latencyMillis).toPlainString());
            }
            if (ByteSizes.parse(size) < 1) {
                throw new IllegalArgumentException("--size must be positive, found " + size);
            }
        }

        long sizeBytes() {
            return ByteSizes.parse(size);
        }

        /** Whether the master and nginx have host 0 to themselves, rather than sharing the first node's host. */
        boolean originAlone() {
            return hosts > nodes + loaders;
        }
    }

    private final Settings settings;
    private final Path logs;
    private final Map<String, Long> files = new LinkedHashMap<>();
    private HostBed bed;
    private BedCluster cluster;
    private long checkpointBytes;

    public ClusterBench(Settings settings) {
        this.settings = settings;
        this.logs = settings.out().resolve("cluster-logs").toAbsolutePath();
    }

    /**
     * Makes the bed, runs every phase {@code runs} times and removes the bed (also when this fails
     * or the JVM is stopped: {@link HostBed} removes it from a shutdown hook).
     *
     * @throws HostBedUnavailableException when a bed cannot be made here, with the reason
     */
    public ClusterReport run() throws Exception {
        long sizeBytes = settings.sizeBytes();
        // Before the bed: a missing peer should cost seconds, not a synthesized checkpoint and an import.
        Path nginx = executable("nginx", "/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx");
        executable("curl", "/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl");
        // Each host's tmpfs holds at most the checkpoint and nginx's files (host 0), or a node's pool.
        long tmpfs = 2 * sizeBytes + (1L << 30);
        bed = HostBed.create(HostBed.Options.hosts(settings.hosts()).withRate(settings.nicRate())
                .withLatencyMillis(settings.latencyMillis()).withPrefix(settings.prefix()).withTmpfsSize((tmpfs >> 20) + "m"));
        List<HostProcess> servers = new ArrayList<>();
        try {
            WorkDirectory.recreate(logs);
            Host origin = bed.host(0);
            int firstNode = settings.originAlone() ? 1 : 0;
            List<Host> nodeHosts = bed.hosts().subList(firstNode, firstNode + settings.nodes());
            List<Host> loaderHosts = bed.hosts().subList(firstNode + settings.nodes(), firstNode + settings.nodes() + settings.loaders());
            progress("bed %s: %d hosts, NICs at %s", bed.prefix(), bed.size(), settings.nicRate());

            Path checkpoint = bed.privateDir().resolve("checkpoint");
            // Synthesized first: the pools are sized from what the checkpoint came to.
            synthesize(origin, checkpoint);
            long capacity = Math.ceilDiv(checkpointBytes * settings.replicas(), settings.nodes()) + (384L << 20);
            if (capacity > tmpfs) {
                throw new IOException("the synthesized checkpoint (" + checkpointBytes + " bytes) is larger than --size allowed for");
            }
            cluster = BedCluster.start(bed, origin, nodeHosts, capacity, List.of(), logs);
            progress("importing %s with %d replicas over host 0's NIC", ByteSizes.format(checkpointBytes), settings.replicas());
            cluster.importCheckpoint(origin, checkpoint, CHECKPOINT_ID, settings.replicas(), settings.connections());
            for (Host host : nodeHosts) {
                servers.add(host.startListening(logs.resolve("probe-" + host.index() + ".log"), PROBE_PORT, START_TIMEOUT,
                        LinkProbe.command("serve", host.address(), Integer.toString(PROBE_PORT))));
            }
            double ceiling = linkCeiling(nodeHosts.getFirst(), loaderHosts.getFirst());
            double roundTrip = roundTripMicros(nodeHosts.getFirst(), loaderHosts.getFirst());
            servers.add(startNginx(origin, nginx, checkpoint));

            PhaseRunner phases = new PhaseRunner(logs, checkpointBytes);
            List<ClusterReport.Run> runs = new ArrayList<>();
            for (int run = 1; run <= settings.runs(); run++) {
                runs.add(run(phases, run, origin, nodeHosts, loaderHosts));
            }
            String roles = "master and nginx on host 0" + (settings.originAlone() ? "" : " (a node's host too)") + "; nodes on hosts "
                    + indexes(nodeHosts) + "; loaders on hosts " + indexes(loaderHosts);
            ClusterReport.Bed shape = new ClusterReport.Bed(bed.size(), settings.nodes(), settings.loaders(), roles, bed.rateBitsPerSecond(),
                    "tbf on both ends of each host's veth (egress of the host, egress of the bridge port to it)",
                    settings.latencyMillis(), roundTrip, Runtime.getRuntime().availableProcessors());
            return ClusterReport.of(shape, checkpointBytes, files.size(), settings.replicas(), settings.connections(), settings.tpSize(),
                    settings.barrier(), ceiling, runs);
        } finally {
            servers.forEach(HostProcess::stop);
            if (cluster != null) {
                cluster.close();
            }
            bed.close();
        }
    }

    private ClusterReport.Run run(PhaseRunner phases, int run, Host origin, List<Host> nodeHosts, List<Host> loaderHosts) throws Exception {
        int m = loaderHosts.size();
        boolean barrier = settings.barrier();
        progress("run %d: %d raw TCP streams at once into %d hosts from %d hosts", run, m, m, nodeHosts.size());
        Phase raw = phases.run("raw-" + run, loaderHosts, nodeHosts, barrier, j -> LinkProbe.command("fetch",
                nodeHosts.get(j % nodeHosts.size()).address(), Integer.toString(PROBE_PORT), Long.toString(checkpointBytes)),
                ClusterBench::probeReport);

        progress("run %d: %d loaders on %d hosts at once, from %d node hosts", run, m, m, nodeHosts.size());
        Phase fanIn = phases.run("fanin-" + run, loaderHosts, nodeHosts, barrier, j -> load(1, 0), ClusterBench::loadReport);

        progress("run %d: %d curls on %d hosts at once, from nginx on host 0", run, m, m);
        List<String> curl = curl(origin);
        Phase nginx = phases.run("nginx-" + run, loaderHosts, List.of(origin), barrier, j -> curl, this::curlReport);

        Phase tp = null;
        if (settings.tpSize() > 1) {
            int t = settings.tpSize();
            progress("run %d: tensor parallelism %d, one rank per host", run, t);
            tp = phases.run("tp-" + run, loaderHosts.subList(0, t), nodeHosts, barrier, r -> load(t, r), ClusterBench::loadReport);
        }

        // Alone, without the barrier: one loader needs no other to wait for.
        progress("run %d: one loader on node host %d, then one on host %d", run, nodeHosts.getFirst().index(),
                loaderHosts.getFirst().index());
        Phase sameHost = phases.run("samehost-" + run, List.of(nodeHosts.getFirst()), nodeHosts, false, j -> load(1, 0),
                ClusterBench::loadReport);
        Phase remote = phases.run("remote-" + run, List.of(loaderHosts.getFirst()), nodeHosts, false, j -> load(1, 0),
                ClusterBench::loadReport);
        return new ClusterReport.Run(raw, fanIn, nginx, tp, sameHost, remote);
    }

    private static String indexes(List<Host> hosts) {
        return hosts.getFirst().index() + "-" + hosts.getLast().index();
    }

    private List<String> load(int tpSize, int rank) {
        return cluster.cli("load", "weightstore://" + CHECKPOINT_ID, "--store", cluster.master(), "--json", "--connections",
                Integer.toString(settings.connections()), "--tp-size", Integer.toString(tpSize), "--tp-rank", Integer.toString(rank));
    }

    /** Synthesizes the checkpoint into {@code origin}'s private directory and lists its files. */
    private void synthesize(Host origin, Path checkpoint) throws Exception {
        progress("synthesizing a %s checkpoint on host 0", settings.size());
        SynthesizedCheckpoint synthesized = SynthesizedCheckpoint.make(bed, origin, checkpoint, settings.size());
        files.putAll(synthesized.files());
        checkpointBytes = synthesized.bytes();
    }

    /** Payload bytes per second of one raw TCP stream between two hosts: what a link gives an application here. */
    private double linkCeiling(Host from, Host to) throws Exception {
        long bytes = Math.max(16L << 20, bed.rateBitsPerSecond() / 8 * 3 / 2);
        Host.Completed fetched = to.run(Duration.ofMinutes(5), LinkProbe.command("fetch", from.address(), Integer.toString(PROBE_PORT),
                Long.toString(bytes)));
        if (fetched.exitCode() != 0) {
            throw new IOException("link probe failed: " + HostProcess.tail(fetched.output()));
        }
        PhaseRunner.Report report = probeReport(to.index(), fetched.output());
        return report.gbPerSecond();
    }

    private static Path executable(String name, String... candidates) throws IOException {
        return Stream.of(candidates).map(Path::of).filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new IOException(name + " is not installed (looked for " + String.join(", ", candidates)
                        + "): run bench/install-peers.sh"));
    }

    /** The median round trip of one byte from {@code to} to {@code from}'s probe and back, in microseconds. */
    private static double roundTripMicros(Host from, Host to) throws Exception {
        Host.Completed echoed = to.run(Duration.ofMinutes(1), LinkProbe.command("rtt", from.address(), Integer.toString(PROBE_PORT),
                "200"));
        if (echoed.exitCode() != 0) {
            throw new IOException("round-trip probe failed: " + HostProcess.tail(echoed.output()));
        }
        return BedCluster.json(echoed.output()).get("medianMicros").asDouble();
    }

    private HostProcess startNginx(Host origin, Path binary, Path root) throws Exception {
        Path prefix = Files.createDirectories(logs.resolve("nginx"));
        Path conf = NginxConfig.write(prefix, origin.address(), NGINX_PORT, root, 1024);
        return origin.startListening(logs.resolve("nginx.log"), NGINX_PORT, START_TIMEOUT,
                List.of(binary.toString(), "-p", prefix.toString(), "-c", conf.toString()));
    }

    /** One curl that fetches every file in {@link #RANGE_BYTES} ranges, {@code --connections} at a time, and prints each status and size. */
    private List<String> curl(Host origin) {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--no-progress-meter", "--parallel", "--parallel-immediate",
                "--parallel-max", Integer.toString(settings.connections())));
        boolean first = true;
        for (Map.Entry<String, Long> file : files.entrySet()) {
            for (long start = 0; start < file.getValue(); start += RANGE_BYTES) {
                long end = Math.min(file.getValue(), start + RANGE_BYTES) - 1;
                if (!first) {
                    command.add("--next");
                }
                first = false;
                command.addAll(List.of("--fail", "-r", start + "-" + end, "-o", "/dev/null", "-w", "%{http_code} %{size_download}\\n",
                        "http://" + origin.address() + ":" + NGINX_PORT + "/" + file.getKey()));
            }
        }
        return command;
    }

    // ---- what the receiving processes print

    static PhaseRunner.Report loadReport(int host, String output) throws IOException {
        JsonNode rank = BedCluster.json(output).get(0);
        return new PhaseRunner.Report(rank.get("bytesRead").asLong(), rank.get("seconds").asDouble(), rank.get("gbPerSecond").asDouble(),
                rank.get("fractionOfCheckpoint").asDouble());
    }

    static PhaseRunner.Report probeReport(int host, String output) throws IOException {
        JsonNode report = BedCluster.json(output);
        long bytes = report.get("bytes").asLong();
        double seconds = report.get("seconds").asDouble();
        return new PhaseRunner.Report(bytes, seconds, bytes / seconds / 1e9, null);
    }

    private PhaseRunner.Report curlReport(int host, String output) throws IOException {
        long bytes = 0;
        for (String line : output.lines().toList()) {
            String[] f = line.trim().split(" ");
            if (f.length == 2 && f[0].matches("\\d{3}")) {
                if (!f[0].equals("206") && !f[0].equals("200")) {
                    throw new IOException("nginx answered " + f[0] + " to a range request");
                }
                bytes += Long.parseLong(f[1]);
            }
        }
        if (bytes != checkpointBytes) {
            throw new IOException("curl on host " + host + " received " + bytes + " bytes, expected " + checkpointBytes + ": "
                    + HostProcess.tail(output));
        }
        return new PhaseRunner.Report(bytes, null, null, null);
    }

    private static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "bench cluster: " + format + "%n", args);
    }
}

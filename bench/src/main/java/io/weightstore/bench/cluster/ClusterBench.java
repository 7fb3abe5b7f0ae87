package io.weightstore.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * {@code bench cluster}: a cluster on the host bed, where each host's NIC, not the CPU, is the limit.
 *
 * <p>Host 0 runs the master (and, for the single-origin comparison, nginx), hosts 1..K run storage
 * nodes with private pools, and the next M hosts run loaders: the {@code weightstore} CLI as separate
 * processes. It measures
 * <ul>
 *   <li>fan-in: M loaders loading one checkpoint at once from K node hosts, against the link-limited
 *       ideal min(K, M) x NIC, and each node host's share of the bytes served;
 *   <li>the single origin: M {@code curl}s fetching the same files at once, in 64 MiB HTTP Range
 *       requests, from nginx on one host;
 *   <li>with {@code --tp-size T > 1}: T loaders each loading one tensor-parallel rank, and the share
 *       of the checkpoint each moved over its NIC.
 * </ul>
 *
 * <p>Phases are timed on the wire: the NIC counters of every host are read every 10 ms. JVMs starting
 * on a 2-core machine begin loading seconds apart, which says nothing about a cluster where every
 * host has its own cores, so the aggregate is the rate while all M were receiving at once; the rate
 * from the first receiver's first byte to the last one's last byte is reported beside it.
 */
public final class ClusterBench {
    static final String CHECKPOINT_ID = "cluster-bench";
    static final int MASTER_PORT = 7070;
    static final int NODE_PORT = 7071;
    static final int NGINX_PORT = 8080;
    static final int PROBE_PORT = 5001;
    static final long RANGE_CHUNK = 64L << 20;
    /** Loads that overlap for less than this cannot give an aggregate. */
    static final double MIN_OVERLAP_SECONDS = 0.2;
    /** What a receiving host gets before the start barrier holds its process. */
    static final long BARRIER_BYTES = 4L << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The flags. */
    public record Config(int hosts, int nodes, int loaders, String nicRate, int latencyMillis, String size, int replicas, int tpSize,
            int runs, boolean json, Path out, int connections, Path cli, String prefix, boolean barrier) {}

    private final Config config;
    private final Path logs;
    private final long sizeBytes;
    private HostBed bed;
    private Path privateDir;
    private Path checkpointDir;
    private final Map<String, Long> files = new LinkedHashMap<>();
    private long checkpointBytes;
    private final List<String> notes = new ArrayList<>();

    ClusterBench(Config config) {
        this.config = config;
        this.logs = config.out().resolve("cluster-logs");
        this.sizeBytes = parseSize(config.size());
    }

    public static void main(String[] args) {
        Config config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench cluster: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (config == null) {
            System.out.println(USAGE);
            return;
        }
        try {
            Map<String, Object> report = new ClusterBench(config).run();
            Files.createDirectories(config.out());
            Path json = config.out().resolve("cluster.json");
            Files.writeString(json, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report) + "\n");
            Path svg = config.out().resolve("cluster.svg");
            chart(svg, report);
            if (config.json()) {
                System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
            } else {
                printTable(report);
                System.out.printf("wrote %s and %s; logs in %s%n", json, svg, config.out().resolve("cluster-logs"));
            }
            System.exit(0);
        } catch (HostBedUnavailableException e) {
            System.err.println("bench cluster: cannot make a host bed here: " + e.getMessage());
            System.exit(HostBed.EXIT_UNAVAILABLE);
        } catch (Exception e) {
            System.err.println("bench cluster: " + e.getMessage());
            System.exit(1);
        }
    }

    static final String USAGE = """
            usage: ClusterBench [--hosts N] [--nodes K] [--loaders M] [--nic-rate RATE] [--latency MS] [--size SIZE]
                                [--replicas R] [--tp-size T] [--runs N] [--connections C] [--json] [--out DIR]
                                [--cli DIR] [--prefix P] [--no-barrier]
              --nodes K        node hosts (default 4)          --loaders M   loader hosts (default 4)
              --hosts N        hosts on the bed, at least 1 + K + M (the default)
              --nic-rate RATE  each NIC, each way: NUM[k|m|g]bit (default 1gbit)
              --latency MS     one-way delay; refused on kernels without netem (this one has none)
              --size SIZE      synthetic checkpoint, e.g. 256M, 2G (default 256M)
              --replicas R     copies of each slice (default 2)   --tp-size T  also load T ranks on T hosts (default 1)
              --runs N         repetitions of each phase (default 1)
              --connections C  loader connections, and curl's parallel ranges (default 4)
              --out DIR        cluster.json, cluster.svg and cluster-logs/ (default bench-results)
              --cli DIR        the repository root with the built CLI (./weightstore --help builds it; default .)
              --prefix P       names of the bed's namespaces: wsbed + up to 4 of [a-z0-9] (default: random)
              --no-barrier     start the M receivers of a phase and let them run; by default each is held
                               (SIGSTOP) after its first 4 MiB until all M got there, then all continue at once
            Needs root (network namespaces); exits 77 when a bed cannot be made here.""";

    static Config parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        boolean json = false;
        boolean barrier = true;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                return null;
            }
            if (arg.equals("--json")) {
                json = true;
                continue;
            }
            if (arg.equals("--no-barrier")) {
                barrier = false;
                continue;
            }
            String name = arg;
            String value;
            if (arg.contains("=")) {
                name = arg.substring(0, arg.indexOf('='));
                value = arg.substring(arg.indexOf('=') + 1);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                value = args[++i];
            }
            if (!List.of("--hosts", "--nodes", "--loaders", "--nic-rate", "--latency", "--size", "--replicas", "--tp-size", "--runs",
                    "--out", "--connections", "--cli", "--prefix").contains(name)) {
                throw new IllegalArgumentException("unknown option " + name);
            }
            values.put(name, value);
        }
        int nodes = positive(values, "--nodes", 4);
        int loaders = positive(values, "--loaders", 4);
        int hosts = positive(values, "--hosts", 1 + nodes + loaders);
        if (hosts < 1 + nodes + loaders) {
            throw new IllegalArgumentException("--hosts " + hosts + " is too few: the master (and nginx) need 1, nodes " + nodes
                    + ", loaders " + loaders);
        }
        int replicas = positive(values, "--replicas", 2);
        if (replicas > nodes) {
            throw new IllegalArgumentException("--replicas " + replicas + " exceeds --nodes " + nodes);
        }
        int tpSize = positive(values, "--tp-size", 1);
        if (tpSize > loaders) {
            throw new IllegalArgumentException("--tp-size " + tpSize + " needs as many loader hosts (--loaders " + loaders + ")");
        }
        int latency = Integer.parseInt(values.getOrDefault("--latency", "0"));
        if (latency < 0) {
            throw new IllegalArgumentException("--latency must be >= 0");
        }
        String size = values.getOrDefault("--size", "256M");
        parseSize(size);
        return new Config(hosts, nodes, loaders, values.getOrDefault("--nic-rate", "1gbit"), latency, size, replicas, tpSize,
                positive(values, "--runs", 1), json, Path.of(values.getOrDefault("--out", "bench-results")),
                positive(values, "--connections", 4), Path.of(values.getOrDefault("--cli", ".")).toAbsolutePath().normalize(),
                values.getOrDefault("--prefix", HostBed.Options.hosts(1).prefix()), barrier);
    }

    private static int positive(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value);
            if (n < 1) {
                throw new IllegalArgumentException(name + " must be >= 1, found " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " takes a whole number, found " + value);
        }
    }

    /** Bytes from NUM[K|M|G|T] (binary units, as the CLI's sizes). */
    static long parseSize(String text) {
        String s = text.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        char last = s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
        int shift = "KMGT".indexOf(last);
        if (shift >= 0) {
            unit = 1L << (10 * (shift + 1));
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is not NUM[K|M|G|T]");
        }
    }

    // ---- the run

    Map<String, Object> run() throws Exception {
        Path jar = config.cli().resolve("cli/target/weightstore-cli.jar");
        if (!Files.isRegularFile(jar) || !Files.isDirectory(config.cli().resolve("cli/target/lib"))) {
            throw new IOException("no built CLI under " + config.cli() + " (cli/target/weightstore-cli.jar and cli/target/lib):"
                    + " build it with ./weightstore --help, or point --cli at the repository root");
        }
        // Each host's tmpfs holds at most: the checkpoint, the master's data (host 0) or a node's pool.
        long tmpfs = 2 * sizeBytes + (1L << 30);
        bed = HostBed.create(HostBed.Options.hosts(config.hosts()).withRate(config.nicRate()).withLatencyMillis(config.latencyMillis())
                .withPrefix(config.prefix()).withTmpfsSize((tmpfs >> 20) + "m"));
        List<HostProcess> servers = new ArrayList<>();
        try {
            deleteRecursively(logs);
            Files.createDirectories(logs);
            privateDir = bed.privateDir();
            checkpointDir = privateDir.resolve("checkpoint");
            Host origin = bed.host(0);
            List<Host> nodeHosts = bed.hosts().subList(1, 1 + config.nodes());
            List<Host> loaderHosts = bed.hosts().subList(1 + config.nodes(), 1 + config.nodes() + config.loaders());
            progress("bed %s: %d hosts on %s", bed.prefix(), bed.size(), config.nicRate());

            synthesize(origin);
            long capacity = Math.ceilDiv(checkpointBytes * config.replicas(), config.nodes()) + 2 * (64L << 20) + (256L << 20);
            if (capacity > tmpfs) {
                throw new IOException("the synthesized checkpoint (" + checkpointBytes + " bytes) is larger than --size allowed for");
            }
            servers.add(startServer(origin, "master", MASTER_PORT, cli("master", "--data-dir", privateDir.resolve("master").toString(),
                    "--bind", origin.address(), "--port", Integer.toString(MASTER_PORT))));
            String master = origin.address() + ":" + MASTER_PORT;
            for (Host host : nodeHosts) {
                servers.add(startServer(host, "node-" + host.index(), NODE_PORT, cli("node", "--master", master, "--pool",
                        privateDir.resolve("pool").toString(), "--capacity", (Math.ceilDiv(capacity, 1L << 20)) + "M", "--bind",
                        host.address(), "--advertise", host.address(), "--port", Integer.toString(NODE_PORT))));
            }
            awaitNodes(origin, master);
            importCheckpoint(origin, master);
            for (Host host : nodeHosts) {
                servers.add(startServer(host, "probe-" + host.index(), PROBE_PORT, probe("serve", host.address(),
                        Integer.toString(PROBE_PORT))));
            }
            double ceiling = linkCeiling(nodeHosts.getFirst(), loaderHosts.getFirst());
            servers.add(startNginx(origin));

            List<Map<String, Object>> runs = new ArrayList<>();
            for (int run = 1; run <= config.runs(); run++) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("raw", raw(run, nodeHosts, loaderHosts));
                r.put("fanIn", fanIn(run, master, nodeHosts, loaderHosts));
                r.put("nginx", nginx(run, origin, loaderHosts));
                if (config.tpSize() > 1) {
                    r.put("tp", tensorParallel(run, master, nodeHosts, loaderHosts.subList(0, config.tpSize())));
                }
                runs.add(r);
            }
            return report(ceiling, runs);
        } finally {
            for (HostProcess server : servers) {
                server.stop();
            }
            bed.close();
        }
    }

    private void synthesize(Host origin) throws Exception {
        progress("synthesizing a %s checkpoint on host 0", config.size());
        check(origin.run(Duration.ofMinutes(10), cli("synth", "--out", checkpointDir.toString(), "--size", config.size())), "synth");
        Host.Completed listing = origin.run(Duration.ofSeconds(30), "sh", "-c", "cd \"$1\" && stat -c '%s %n' *", "sh",
                checkpointDir.toString());
        check(listing, "listing the checkpoint");
        for (String line : listing.output().lines().toList()) {
            String[] f = line.split(" ", 2);
            files.put(f[1], Long.parseLong(f[0]));
        }
        checkpointBytes = files.values().stream().mapToLong(Long::longValue).sum();
    }

    private HostProcess startServer(Host host, String name, int port, List<String> command) throws Exception {
        HostProcess process = host.start(logs.resolve(name + ".log"), command);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!host.listening(port)) {
            if (!process.isAlive()) {
                throw new IOException(name + " on " + host + " exited: " + tail(process.output()));
            }
            if (System.nanoTime() > deadline) {
                process.stop();
                throw new TimeoutException(name + " on " + host + " does not listen on " + port + " after 60 s: " + tail(process.output()));
            }
            Thread.sleep(50);
        }
        return process;
    }

    private void awaitNodes(Host origin, String master) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            Host.Completed status = origin.run(Duration.ofSeconds(60), cli("store", "status", "--store", master, "--json"));
            if (status.exitCode() == 0) {
                long up = 0;
                for (JsonNode node : json(status.output()).get("nodes")) {
                    up += node.get("up").asBoolean() ? 1 : 0;
                }
                if (up == config.nodes()) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("not all " + config.nodes() + " nodes registered within 90 s: " + tail(status.output()));
            }
            Thread.sleep(500);
        }
    }

    private void importCheckpoint(Host origin, String master) throws Exception {
        progress("importing %d bytes with %d replicas over host 0's NIC", checkpointBytes, config.replicas());
        check(origin.run(Duration.ofMinutes(30), cli("model", "import", "--checkpoint-id", CHECKPOINT_ID, "--model-id",
                "bench/synthetic", "--source", checkpointDir.toString(), "--replicas", Integer.toString(config.replicas()),
                "--store", master, "--connections", Integer.toString(config.connections()))), "model import");
    }

    /** Payload bytes per second of one raw TCP stream between two hosts: what a link gives an application here. */
    private double linkCeiling(Host from, Host to) throws Exception {
        long bytes = Math.max(16L << 20, bed.rateBitsPerSecond() / 8 * 3 / 2);
        Host.Completed fetched = to.run(Duration.ofMinutes(5), probe("fetch", from.address(), Integer.toString(PROBE_PORT),
                Long.toString(bytes)));
        check(fetched, "link probe");
        return probeReport(to.index(), fetched.output()).ownGbPerSecond();
    }

    private HostProcess startNginx(Host origin) throws Exception {
        Path binary = Stream.of("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx").map(Path::of).filter(Files::isExecutable)
                .findFirst().orElseThrow(() -> new IOException("nginx is not installed: run bench/install-peers.sh"));
        Path prefix = Files.createDirectories(logs.resolve("nginx").toAbsolutePath());
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, """
                daemon off;
                worker_processes 2;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    sendfile on;
                    tcp_nopush on;
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    server {
                        listen %2$s:%3$d;
                        root %4$s;
                    }
                }
                """.formatted(prefix, origin.address(), NGINX_PORT, checkpointDir));
        return startServer(origin, "nginx", NGINX_PORT, List.of(binary.toString(), "-p", prefix.toString(), "-c", conf.toString()));
    }

    // ---- phases

    /** What one receiving process reported, and what its host's NIC saw. */
    record Receiver(int host, long payloadBytes, Double ownSeconds, Double ownGbPerSecond, Double fractionOfCheckpoint) {}

    private Map<String, Object> fanIn(int run, String master, List<Host> nodeHosts, List<Host> loaderHosts) throws Exception {
        progress("run %d: %d loaders on %d hosts at once, from %d node hosts", run, loaderHosts.size(), loaderHosts.size(),
                nodeHosts.size());
        return concurrent("fanin-" + run, loaderHosts, nodeHosts, j -> cli("load", "weightstore://" + CHECKPOINT_ID, "--store", master,
                "--json", "--connections", Integer.toString(config.connections())), this::loadReport);
    }

    /** The bed's own ceiling for the fan-in: M raw TCP streams at once, loader host j reading from node host j mod K. */
    private Map<String, Object> raw(int run, List<Host> nodeHosts, List<Host> loaderHosts) throws Exception {
        progress("run %d: %d raw TCP streams at once into %d hosts from %d hosts", run, loaderHosts.size(), loaderHosts.size(),
                nodeHosts.size());
        return concurrent("raw-" + run, loaderHosts, nodeHosts, j -> probe("fetch", nodeHosts.get(j % nodeHosts.size()).address(),
                Integer.toString(PROBE_PORT), Long.toString(checkpointBytes)), this::probeReport);
    }

    private Map<String, Object> tensorParallel(int run, String master, List<Host> nodeHosts, List<Host> rankHosts) throws Exception {
        int t = rankHosts.size();
        progress("run %d: tensor parallelism %d, one rank per host", run, t);
        Map<String, Object> phase = concurrent("tp-" + run, rankHosts, nodeHosts, r -> cli("load", "weightstore://" + CHECKPOINT_ID,
                "--store", master, "--json", "--connections", Integer.toString(config.connections()), "--tp-size", Integer.toString(t),
                "--tp-rank", Integer.toString(r)), this::loadReport);
        return phase;
    }

    private Map<String, Object> nginx(int run, Host origin, List<Host> loaderHosts) throws Exception {
        progress("run %d: %d curls on %d hosts at once, from nginx on host 0", run, loaderHosts.size(), loaderHosts.size());
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--no-progress-meter", "--parallel", "--parallel-immediate", "--parallel-max",
                Integer.toString(config.connections())));
        boolean first = true;
        for (Map.Entry<String, Long> file : files.entrySet()) {
            for (long start = 0; start < file.getValue(); start += RANGE_CHUNK) {
                long end = Math.min(file.getValue(), start + RANGE_CHUNK) - 1;
                if (!first) {
                    command.add("--next");
                }
                first = false;
                command.addAll(List.of("--fail", "-r", start + "-" + end, "-o", "/dev/null", "-w", "%{http_code} %{size_download}\\n",
                        "http://" + origin.address() + ":" + NGINX_PORT + "/" + file.getKey()));
            }
        }
        return concurrent("nginx-" + run, loaderHosts, List.of(origin), j -> command, this::curlReport);
    }

    private Receiver loadReport(int host, String output) throws IOException {
        JsonNode rank = json(output).get(0);
        return new Receiver(host, rank.get("bytesRead").asLong(), rank.get("seconds").asDouble(), rank.get("gbPerSecond").asDouble(),
                rank.get("fractionOfCheckpoint").asDouble());
    }

    private Receiver probeReport(int host, String output) throws IOException {
        JsonNode report = json(output);
        double seconds = report.get("seconds").asDouble();
        return new Receiver(host, report.get("bytes").asLong(), seconds, report.get("bytes").asLong() / seconds / 1e9, null);
    }

    private Receiver curlReport(int host, String output) throws IOException {
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
            throw new IOException("curl on host " + host + " received " + bytes + " bytes, expected " + checkpointBytes + ": " + tail(output));
        }
        return new Receiver(host, bytes, null, null, null);
    }

    @FunctionalInterface
    private interface ReportParser {
        Receiver parse(int host, String output) throws IOException;
    }

    /**
     * Starts one process per receiving host at once, waits for all, and times the phase on the wire.
     *
     * <p>With the start barrier (the default), each receiving process is stopped (SIGSTOP) once its
     * host has received {@link #BARRIER_BYTES}, and all are continued together when every one got
     * there: JVMs starting on this machine's 2 shared cores begin seconds apart, often further apart
     * than a load lasts, and a cluster's hosts do not share cores. A stopped receiver's kernel stops
     * the sender with TCP flow control; nothing is dropped or retried. The processes' own timings
     * then include the hold (reported, and subtracted beside them); the wire timings start at the release.
     *
     * <p>The aggregate is the payload rate while every receiver was receiving (from the last one's
     * start to the first one's end); the wall aggregate spans the first start to the last end.
     */
    private Map<String, Object> concurrent(String name, List<Host> receivers, List<Host> senders, IntFunction<List<String>> command,
            ReportParser parser) throws Exception {
        int n = receivers.size();
        List<Host> watched = new ArrayList<>(receivers);
        watched.addAll(senders);
        List<HostProcess> processes = new ArrayList<>();
        double[] held = new double[n];
        long releaseNanos = 0;
        WireSampler.Timing timing;
        try (WireSampler sampler = new WireSampler(watched)) {
            long[] base = new long[n];
            for (int j = 0; j < n; j++) {
                base[j] = receivers.get(j).rxBytes();
            }
            for (int j = 0; j < n; j++) {
                Host host = receivers.get(j);
                processes.add(host.start(logs.resolve(name + "-host" + host.index() + ".log"), command.apply(j)));
            }
            if (config.barrier()) {
                releaseNanos = barrier(receivers, processes, base, held);
            }
            for (HostProcess process : processes) {
                int exit = process.waitFor(Duration.ofMinutes(30));
                if (exit != 0) {
                    throw new IOException(name + ": " + process + " exited with " + exit + ": " + tail(process.output()));
                }
            }
            timing = sampler.stop();
        } finally {
            processes.forEach(HostProcess::stop);
        }
        List<Receiver> reports = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            reports.add(parser.parse(receivers.get(j).index(), processes.get(j).output()));
        }
        double release = config.barrier() ? timing.secondsAt(releaseNanos) : 0;
        double[] start = new double[n];
        double[] end = new double[n];
        for (int j = 0; j < n; j++) {
            start[j] = Math.max(timing.start(j), release);
            end[j] = timing.end(j);
        }
        List<Integer> indices = IntStream.range(0, n).boxed().toList();
        long payload = reports.stream().mapToLong(Receiver::payloadBytes).sum();
        long wire = indices.stream().mapToLong(timing::rxBytes).sum();
        double payloadPerWireByte = (double) payload / wire;
        double lastStart = Arrays.stream(start).max().orElseThrow();
        double firstEnd = Arrays.stream(end).min().orElseThrow();
        double firstStart = Arrays.stream(start).min().orElseThrow();
        double lastEnd = Arrays.stream(end).max().orElseThrow();
        double overlap = firstEnd - lastStart;
        Double aggregate = overlap >= MIN_OVERLAP_SECONDS
                ? timing.rxBetween(indices, lastStart, firstEnd) * payloadPerWireByte / overlap / 1e9 : null;
        double wall = timing.rxBetween(indices, firstStart, lastEnd) * payloadPerWireByte / (lastEnd - firstStart) / 1e9;

        List<Map<String, Object>> perReceiver = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            Receiver r = reports.get(j);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("host", receivers.get(j).index());
            m.put("payloadBytes", r.payloadBytes());
            m.put("nicBytes", timing.rxBytes(j));
            m.put("fractionOfCheckpointOverNic", (double) timing.rxBytes(j) / checkpointBytes);
            if (r.fractionOfCheckpoint() != null) {
                m.put("fractionOfCheckpoint", r.fractionOfCheckpoint());
            }
            m.put("heldSeconds", held[j]);
            if (r.ownSeconds() != null) {
                m.put("seconds", r.ownSeconds());
                m.put("gbPerSecond", r.ownGbPerSecond());
                m.put("secondsWithoutHold", r.ownSeconds() - held[j]);
                m.put("gbPerSecondWithoutHold", r.payloadBytes() / (r.ownSeconds() - held[j]) / 1e9);
            }
            m.put("wireStartSeconds", start[j]);
            m.put("wireEndSeconds", end[j]);
            m.put("wireGbPerSecond", timing.rxBetween(List.of(j), start[j], end[j]) * r.payloadBytes() / timing.rxBytes(j)
                    / (end[j] - start[j]) / 1e9);
            perReceiver.add(m);
        }
        long served = IntStream.range(0, senders.size()).mapToLong(i -> timing.txBytes(n + i)).sum();
        List<Double> shares = IntStream.range(0, senders.size()).mapToObj(i -> (double) timing.txBytes(n + i) / served).toList();

        Map<String, Object> phase = new LinkedHashMap<>();
        phase.put("startBarrier", config.barrier());
        phase.put("releaseSeconds", release);
        phase.put("receivers", perReceiver);
        phase.put("overlapSeconds", overlap);
        phase.put("aggregateGbPerSecond", aggregate);
        phase.put("wallSeconds", lastEnd - firstStart);
        phase.put("wallAggregateGbPerSecond", wall);
        phase.put("senderHosts", senders.stream().map(Host::index).toList());
        phase.put("senderShares", shares);
        return phase;
    }

    /**
     * Stops each receiving process once its host received {@link #BARRIER_BYTES} (or leaves it if it
     * already ended), then continues all of them with one {@code kill}; returns when (System.nanoTime).
     */
    private static long barrier(List<Host> receivers, List<HostProcess> processes, long[] base, double[] held) throws Exception {
        int n = processes.size();
        long[] heldAt = new long[n];
        boolean[] settled = new boolean[n];
        List<String> stopped = new ArrayList<>();
        int remaining = n;
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        try {
            while (remaining > 0 && System.nanoTime() < deadline) {
                for (int j = 0; j < n; j++) {
                    if (settled[j]) {
                        continue;
                    }
                    if (!processes.get(j).isAlive()) {
                        settled[j] = true;
                        remaining--;
                    } else if (receivers.get(j).rxBytes() - base[j] >= BARRIER_BYTES) {
                        signal("-STOP", List.of(Long.toString(processes.get(j).pid())));
                        heldAt[j] = System.nanoTime();
                        stopped.add(Long.toString(processes.get(j).pid()));
                        settled[j] = true;
                        remaining--;
                    }
                }
                Thread.sleep(2);
            }
        } finally {
            if (!stopped.isEmpty()) {
                signal("-CONT", stopped);
            }
        }
        long release = System.nanoTime();
        for (int j = 0; j < n; j++) {
            held[j] = heldAt[j] == 0 ? 0 : (release - heldAt[j]) / 1e9;
        }
        return release;
    }

    private static void signal(String signal, List<String> pids) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", signal));
        command.addAll(pids);
        Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes());
        if (kill.waitFor() != 0 && signal.equals("-STOP")) {
            throw new IOException("kill " + signal + " " + pids + " failed: " + output.strip());
        }
    }

    // ---- the report

    @SuppressWarnings("unchecked")
    private Map<String, Object> report(double ceiling, List<Map<String, Object>> runs) {
        double nic = bed.rateBitsPerSecond() / 8.0 / 1e9;
        int k = config.nodes();
        int m = config.loaders();
        double ideal = Math.min(k, m) * nic;
        double nginxIdeal = nic;
        List<Map<String, Object>> fanIns = runs.stream().map(r -> (Map<String, Object>) r.get("fanIn")).toList();
        List<Map<String, Object>> nginxes = runs.stream().map(r -> (Map<String, Object>) r.get("nginx")).toList();
        List<Map<String, Object>> raws = runs.stream().map(r -> (Map<String, Object>) r.get("raw")).toList();
        Double rawAggregate = median(raws, "aggregateGbPerSecond");
        Double aggregate = median(fanIns, "aggregateGbPerSecond");
        Double wall = median(fanIns, "wallAggregateGbPerSecond");
        Double nginx = median(nginxes, "aggregateGbPerSecond");
        Double nginxWall = median(nginxes, "wallAggregateGbPerSecond");

        // Node shares over every fan-in run: each node host's bytes sent over all of them.
        double[] sent = new double[k];
        for (Map<String, Object> f : fanIns) {
            List<Double> shares = (List<Double>) f.get("senderShares");
            for (int i = 0; i < k; i++) {
                sent[i] += shares.get(i);
            }
        }
        double total = Arrays.stream(sent).sum();
        List<Double> nodeShares = Arrays.stream(sent).map(s -> s / total).boxed().toList();

        Map<String, Object> report = new LinkedHashMap<>();
        Map<String, Object> bedInfo = new LinkedHashMap<>();
        bedInfo.put("hosts", config.hosts());
        bedInfo.put("nodes", k);
        bedInfo.put("loaders", m);
        bedInfo.put("nicBitsPerSecond", bed.rateBitsPerSecond());
        bedInfo.put("shaping", "tbf on both ends of each host's veth (egress of the host, egress of the bridge port to it)");
        bedInfo.put("latencyMillis", config.latencyMillis());
        bedInfo.put("cores", Runtime.getRuntime().availableProcessors());
        report.put("bed", bedInfo);
        report.put("startBarrier", config.barrier());
        report.put("checkpointBytes", checkpointBytes);
        report.put("checkpointFiles", files.size());
        report.put("replicas", config.replicas());
        report.put("connections", config.connections());
        report.put("runs", config.runs());
        report.put("linkCeilingGbPerSecond", ceiling);
        report.put("idealGbPerSecond", ideal);
        report.put("rawAggregateGbPerSecond", rawAggregate);
        report.put("rawWallAggregateGbPerSecond", median(raws, "wallAggregateGbPerSecond"));
        report.put("aggregateGbPerSecond", aggregate);
        report.put("ratioToIdeal", aggregate == null ? null : aggregate / ideal);
        report.put("ratioToLinkCeilingIdeal", aggregate == null ? null : aggregate / (Math.min(k, m) * ceiling));
        report.put("ratioToRaw", aggregate == null || rawAggregate == null ? null : aggregate / rawAggregate);
        report.put("wallAggregateGbPerSecond", wall);
        report.put("wallRatioToIdeal", wall == null ? null : wall / ideal);
        report.put("loaderGbPerSecond", perHost(fanIns, "gbPerSecondWithoutHold"));
        report.put("loaderWireGbPerSecond", perHost(fanIns, "wireGbPerSecond"));
        report.put("nodeShares", nodeShares);
        report.put("maxNodeShareToFair", nodeShares.stream().mapToDouble(Double::doubleValue).max().orElse(0) * k);
        report.put("nginxIdealGbPerSecond", nginxIdeal);
        report.put("nginxAggregateGbPerSecond", nginx);
        report.put("nginxRatioToIdeal", nginx == null ? null : nginx / nginxIdeal);
        report.put("nginxWallAggregateGbPerSecond", nginxWall);
        report.put("ratioToNginx", aggregate == null || nginx == null ? null : aggregate / nginx);
        if (config.tpSize() > 1) {
            List<Map<String, Object>> tps = runs.stream().map(r -> (Map<String, Object>) r.get("tp")).toList();
            double fraction = 0;
            double wireFraction = 0;
            double seconds = 0;
            for (Map<String, Object> tp : tps) {
                for (Map<String, Object> rank : (List<Map<String, Object>>) tp.get("receivers")) {
                    fraction = Math.max(fraction, (Double) rank.get("fractionOfCheckpoint"));
                    wireFraction = Math.max(wireFraction, (Double) rank.get("fractionOfCheckpointOverNic"));
                    seconds = Math.max(seconds, (Double) rank.get("secondsWithoutHold"));
                }
            }
            report.put("tpSize", config.tpSize());
            report.put("tpBytesPerRankFraction", fraction);
            report.put("tpNicBytesPerRankFraction", wireFraction);
            report.put("tpSlowestRankSeconds", seconds);
            report.put("wholeCheckpointLoaderSeconds", fanIns.stream()
                    .flatMap(f -> ((List<Map<String, Object>>) f.get("receivers")).stream())
                    .mapToDouble(r -> (Double) r.get("secondsWithoutHold")).max().orElse(0));
        }
        if (aggregate == null) {
            notes.add("the loaders did not all receive at once for " + MIN_OVERLAP_SECONDS + " s (JVM start-up on this machine staggers"
                    + " them): no aggregate; use a larger --size, or the start barrier");
        }
        if (config.barrier()) {
            notes.add("start barrier: in each phase every receiving process was stopped after its first 4 MiB until all had"
                    + " started, then all continued at once (JVM start-up on this machine's shared cores staggers them by"
                    + " seconds); the processes' own times are given less the hold");
        }
        notes.add("GB/s are 10^9 payload bytes per second; ideals are NIC rates, of which TCP/IP/Ethernet headers take ~4.4% at MTU 1500");
        notes.add("aggregate: payload rate while all receivers were receiving at once, timed from NIC counters every 10 ms;"
                + " wall: from the first receiver's first byte to the last one's last");
        report.put("notes", notes);
        report.put("perRun", runs);
        return report;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> perHost(List<Map<String, Object>> phases, String key) {
        Map<Integer, List<Double>> values = new LinkedHashMap<>();
        for (Map<String, Object> phase : phases) {
            for (Map<String, Object> r : (List<Map<String, Object>>) phase.get("receivers")) {
                values.computeIfAbsent((Integer) r.get("host"), h -> new ArrayList<>()).add((Double) r.get(key));
            }
        }
        List<Map<String, Object>> list = new ArrayList<>();
        values.forEach((host, v) -> list.add(new LinkedHashMap<>(Map.of("host", host, "gbPerSecond", median(v)))));
        return list;
    }

    private static Double median(List<Map<String, Object>> phases, String key) {
        List<Double> values = phases.stream().map(p -> (Double) p.get(key)).filter(v -> v != null).toList();
        return values.isEmpty() ? null : median(values);
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    @SuppressWarnings("unchecked")
    static void printTable(Map<String, Object> report) {
        Map<String, Object> bedInfo = (Map<String, Object>) report.get("bed");
        int k = (Integer) bedInfo.get("nodes");
        int m = (Integer) bedInfo.get("loaders");
        System.out.printf(Locale.ROOT, "bed: %d hosts, NICs %s each way, latency %d ms, %d cores; %d node hosts, %d loader hosts%n",
                bedInfo.get("hosts"), rate((Long) bedInfo.get("nicBitsPerSecond")), bedInfo.get("latencyMillis"), bedInfo.get("cores"), k, m);
        System.out.printf(Locale.ROOT, "checkpoint: %.1f MiB in %d files, %d replicas; %d connections per loader; %d run(s)%n",
                ((Long) report.get("checkpointBytes")) / 1048576.0, report.get("checkpointFiles"), report.get("replicas"),
                report.get("connections"), report.get("runs"));
        System.out.printf(Locale.ROOT, "%-52s %8s %9s%n", "PATH", "GB/S", "OF IDEAL");
        row("link ceiling: raw TCP, one host to another", report.get("linkCeilingGbPerSecond"), (Double) report.get("linkCeilingGbPerSecond"),
                ((Long) bedInfo.get("nicBitsPerSecond")) / 8e9);
        row("ideal: min(" + k + ", " + m + ") x NIC", report.get("idealGbPerSecond"), null, 0);
        row("bed ceiling: " + m + " raw TCP streams at once", report.get("rawAggregateGbPerSecond"),
                (Double) report.get("rawAggregateGbPerSecond"), (Double) report.get("idealGbPerSecond"));
        row("weightstore, " + m + " loaders from " + k + " nodes, all loading", report.get("aggregateGbPerSecond"),
                (Double) report.get("aggregateGbPerSecond"), (Double) report.get("idealGbPerSecond"));
        row("weightstore, first byte to last byte", report.get("wallAggregateGbPerSecond"), (Double) report.get("wallAggregateGbPerSecond"),
                (Double) report.get("idealGbPerSecond"));
        row("nginx origin, " + m + " curls, all loading (ideal: 1 NIC)", report.get("nginxAggregateGbPerSecond"),
                (Double) report.get("nginxAggregateGbPerSecond"), (Double) report.get("nginxIdealGbPerSecond"));
        row("nginx origin, first byte to last byte", report.get("nginxWallAggregateGbPerSecond"),
                (Double) report.get("nginxWallAggregateGbPerSecond"), (Double) report.get("nginxIdealGbPerSecond"));
        List<Map<String, Object>> own = (List<Map<String, Object>>) report.get("loaderGbPerSecond");
        List<Map<String, Object>> wire = (List<Map<String, Object>>) report.get("loaderWireGbPerSecond");
        for (int i = 0; i < own.size(); i++) {
            row("  loader on host " + own.get(i).get("host") + ": its own report, less the hold", own.get(i).get("gbPerSecond"),
                    (Double) own.get(i).get("gbPerSecond"), ((Long) bedInfo.get("nicBitsPerSecond")) / 8e9);
            row("  loader on host " + wire.get(i).get("host") + ": its NIC, 1% to 99% of its bytes", wire.get(i).get("gbPerSecond"),
                    (Double) wire.get(i).get("gbPerSecond"), ((Long) bedInfo.get("nicBitsPerSecond")) / 8e9);
        }
        List<Double> shares = (List<Double>) report.get("nodeShares");
        System.out.printf(Locale.ROOT, "node shares of the bytes served: %s (max %.2f x fair)%n",
                shares.stream().map(s -> String.format(Locale.ROOT, "%.3f", s)).toList(), report.get("maxNodeShareToFair"));
        Object toRaw = report.get("ratioToRaw");
        System.out.printf(Locale.ROOT, "weightstore / raw TCP streams on the same bed: %s%n",
                toRaw == null ? "n/a" : String.format(Locale.ROOT, "%.2f", toRaw));
        Object ratio = report.get("ratioToNginx");
        System.out.printf(Locale.ROOT, "weightstore / nginx origin: %s%n", ratio == null ? "n/a" : String.format(Locale.ROOT, "%.2fx", ratio));
        if (report.containsKey("tpSize")) {
            System.out.printf(Locale.ROOT, "TP=%d: each rank read at most %.3f of the checkpoint (%.3f over its NIC); slowest rank %.2f s,"
                    + " a whole-checkpoint loader %.2f s%n", report.get("tpSize"), report.get("tpBytesPerRankFraction"),
                    report.get("tpNicBytesPerRankFraction"), report.get("tpSlowestRankSeconds"), report.get("wholeCheckpointLoaderSeconds"));
        }
        for (String note : (List<String>) report.get("notes")) {
            System.out.println("note: " + note);
        }
    }

    private static void row(String label, Object value, Double numerator, double denominator) {
        String v = value == null ? "n/a" : String.format(Locale.ROOT, "%.3f", (Double) value);
        String r = numerator == null || denominator == 0 ? "" : String.format(Locale.ROOT, "%.2f", numerator / denominator);
        System.out.printf(Locale.ROOT, "%-52s %8s %9s%n", label, v, r);
    }

    private static String rate(long bitsPerSecond) {
        return bitsPerSecond >= 1_000_000_000 ? String.format(Locale.ROOT, "%.3g Gbit/s", bitsPerSecond / 1e9)
                : String.format(Locale.ROOT, "%.3g Mbit/s", bitsPerSecond / 1e6);
    }

    /** Bars of GB/s: ideals grey, weightstore blue, nginx orange; whiskers span the runs. */
    @SuppressWarnings("unchecked")
    static void chart(Path file, Map<String, Object> report) throws IOException {
        List<Map<String, Object>> runs = (List<Map<String, Object>>) report.get("perRun");
        List<Bar> bars = new ArrayList<>();
        bars.add(new Bar("ideal: min(K, M) x NIC", (Double) report.get("idealGbPerSecond"), Double.NaN, Double.NaN, "#999999"));
        bars.add(bar("raw TCP streams, all at once", report, runs, "raw", "aggregateGbPerSecond", "#bbbbbb"));
        bars.add(bar("weightstore, all loading", report, runs, "fanIn", "aggregateGbPerSecond", "#2b7bb9"));
        bars.add(bar("weightstore, first to last byte", report, runs, "fanIn", "wallAggregateGbPerSecond", "#7fb3d9"));
        bars.add(new Bar("nginx ideal: 1 NIC", (Double) report.get("nginxIdealGbPerSecond"), Double.NaN, Double.NaN, "#999999"));
        bars.add(bar("nginx origin, all loading", report, runs, "nginx", "aggregateGbPerSecond", "#e08a2c"));
        bars.add(bar("nginx origin, first to last byte", report, runs, "nginx", "wallAggregateGbPerSecond", "#f0bf85"));
        int labelWidth = 240;
        int plotWidth = 520;
        int rowHeight = 28;
        int top = 40;
        double max = bars.stream().mapToDouble(b -> Math.max(b.value() == null ? 0 : b.value(), Double.isNaN(b.max()) ? 0 : b.max()))
                .max().orElse(1);
        double scale = plotWidth / (max * 1.1);
        int height = top + bars.size() * rowHeight + 40;
        Map<String, Object> bedInfo = (Map<String, Object>) report.get("bed");
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", labelWidth + plotWidth + 80, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(String.format(Locale.ROOT, "%d loaders, %d node hosts, NICs %s: GB/s", bedInfo.get("loaders"), bedInfo.get("nodes"),
                        rate((Long) bedInfo.get("nicBitsPerSecond"))))));
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            int y = top + i * rowHeight;
            double value = b.value() == null ? 0 : b.value();
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", labelWidth - 8, y + 17,
                    escape(b.label())));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", labelWidth, y + 5,
                    value * scale, rowHeight - 10, b.color()));
            double right = value;
            if (!Double.isNaN(b.min())) {
                svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                        labelWidth + b.min() * scale, labelWidth + b.max() * scale, y + rowHeight / 2, y + rowHeight / 2));
                right = Math.max(right, b.max());
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", labelWidth + right * scale + 6, y + 17,
                    b.value() == null ? "n/a" : String.format(Locale.ROOT, "%.3f", b.value())));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">bars: median GB/s (payload); whiskers: min to max"
                + " over runs; grey: NIC-limited ideals and the bed's raw TCP</text>%n", 10, height - 12));
        svg.append("</svg>\n");
        Files.writeString(file, svg);
    }

    private record Bar(String label, Double value, double min, double max, String color) {}

    /** A bar of a phase's median over the runs, with whiskers from the runs' min to max. */
    @SuppressWarnings("unchecked")
    private static Bar bar(String label, Map<String, Object> report, List<Map<String, Object>> runs, String phase, String key,
            String color) {
        List<Double> values = runs.stream().map(r -> (Double) ((Map<String, Object>) r.get(phase)).get(key)).filter(v -> v != null)
                .toList();
        if (values.isEmpty()) {
            return new Bar(label, null, Double.NaN, Double.NaN, color);
        }
        return new Bar(label, median(values), values.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                values.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), color);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    // ---- helpers

    /** The CLI as a process: this JVM's java, the launcher's flags and class path. */
    private List<String> cli(String... args) {
        List<String> command = new ArrayList<>(List.of("env", "WEIGHTSTORE_HOME=" + privateDir.resolve("home"),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp",
                config.cli().resolve("cli/target/weightstore-cli.jar") + ":" + config.cli().resolve("cli/target/lib") + "/*",
                "io.weightstore.cli.WeightstoreCli"));
        command.addAll(List.of(args));
        return command;
    }

    /** LinkProbe as a process, from the class path this class came from. */
    private static List<String> probe(String... args) {
        Path classes;
        try {
            classes = Path.of(LinkProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", classes.toString(), LinkProbe.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private static void check(Host.Completed completed, String what) throws IOException {
        if (completed.exitCode() != 0) {
            throw new IOException(what + " failed (exit " + completed.exitCode() + "): " + tail(completed.output()));
        }
    }

    /** The JSON value in a CLI's output (after any warnings the JVM printed first). */
    private static JsonNode json(String output) throws IOException {
        int start = IntStream.of(output.indexOf("\n["), output.indexOf("\n{")).filter(i -> i >= 0).min().orElse(-1);
        if (output.startsWith("[") || output.startsWith("{")) {
            start = 0;
        }
        if (start < 0) {
            throw new IOException("no JSON in: " + tail(output));
        }
        return JSON.readTree(output.substring(start));
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    private static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "bench cluster: " + format + "%n", args);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

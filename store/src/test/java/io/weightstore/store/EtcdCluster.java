package io.weightstore.store;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Real etcd members on loopback, on free ports, for the tests of a group of masters: started here,
 * killed one by one by the tests, all stopped (and their data deleted) on close or when the JVM
 * exits. etcd comes from {@code store/src/test/install-etcd.sh}, which installs it when it is
 * missing. Data lives on /dev/shm when there is one, so each commit's fsync costs nothing.
 */
public final class EtcdCluster implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    /** The lowest port a member may take: above the well-known and registered ports most daemons use. */
    private static final int LOWEST_PORT = 20_000;

    private record Member(String name, int clientPort, int peerPort) {
        String clientUrl() {
            return "http://127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }
    }

    private final Path etcd;
    private final Path dir;
    private final List<Member> members = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    /** The members' ports, so that no two get the same. */
    private final Set<Integer> ports = new HashSet<>();
    private final String token = UUID.randomUUID().toString();
    private final Thread cleanup = new Thread(this::destroyAll);

    private EtcdCluster(Path etcd, Path dir) {
        this.etcd = etcd;
        this.dir = dir;
    }

    public static EtcdCluster start(int size) throws IOException, InterruptedException {
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isWritable(shm) ? Files.createTempDirectory(shm, "weightstore-etcd-") : Files.createTempDirectory("weightstore-etcd-");
        EtcdCluster cluster = new EtcdCluster(installedEtcd(), dir);
        Runtime.getRuntime().addShutdownHook(cluster.cleanup);
        try {
            for (int i = 0; i < size; i++) {
                cluster.members.add(new Member("e" + i, cluster.freePort(), cluster.freePort()));
                cluster.processes.add(null);
            }
            for (int i = 0; i < size; i++) {
                cluster.launch(i);
            }
            for (int i = 0; i < size; i++) {
                cluster.awaitHealthy(i);
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Runs the project's install script; its last line is etcd's path. */
    private static Path installedEtcd() throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("user.dir")).resolve("src/test/install-etcd.sh");
        if (!Files.exists(script)) {
            script = Path.of(System.getProperty("user.dir")).resolve("store/src/test/install-etcd.sh");
        }
        if (!Files.exists(script)) {
            script = Path.of(System.getProperty("user.dir")).resolveSibling("store").resolve("src/test/install-etcd.sh");
        }
        Process install = new ProcessBuilder("bash", script.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (install.waitFor() != 0 || out.isEmpty()) {
            throw new IOException("etcd is needed for the tests of a group of masters, and " + script + " could not install it (exit "
                    + install.exitValue() + ")");
        }
        return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    /**
     * A port below the kernel's ephemeral range, free now and not taken by another member. One the kernel hands out
     * (bind to 0) comes from that range, where any connection may take it as its source port before etcd binds it: on a
     * busy test run one did (bind: address already in use).
     */
    private int freePort() throws IOException {
        int ephemeralLow = ephemeralPortsFrom();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = LOWEST_PORT + ThreadLocalRandom.current().nextInt(ephemeralLow - LOWEST_PORT);
            if (ports.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException taken) {
                continue;
            }
            ports.add(port);
            return port;
        }
        throw new IOException("no free port between " + LOWEST_PORT + " and " + ephemeralLow + " for etcd");
    }

    private static int ephemeralPortsFrom() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        // By lines: Files.readString gets one byte of this file, whose second read starts past its end.
        return Files.exists(range) ? Integer.parseInt(Files.readAllLines(range).getFirst().strip().split("\\s+")[0]) : 32_768;
    }

    private void launch(int index) throws IOException {
        Member member = members.get(index);
        String initial = members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
        Process process = new ProcessBuilder(etcd.toString(), "--name", member.name(), "--data-dir", dir.resolve(member.name()).toString(),
                "--listen-client-urls", member.clientUrl(), "--advertise-client-urls", member.clientUrl(),
                "--listen-peer-urls", member.peerUrl(), "--initial-advertise-peer-urls", member.peerUrl(),
                "--initial-cluster", initial, "--initial-cluster-state", "new", "--initial-cluster-token", token,
                "--log-level", "warn")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(member.name() + ".log").toFile()))
                .start();
        processes.set(index, process);
    }

    private void awaitHealthy(int index) throws IOException, InterruptedException {
        Member member = members.get(index);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            while (System.nanoTime() < deadline) {
                if (!processes.get(index).isAlive()) {
                    break;
                }
                try {
                    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(member.clientUrl() + "/health"))
                            .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                    if (health.statusCode() == 200 && health.body().contains("true")) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(100);
            }
        }
        throw new IOException("etcd member " + member.name() + " did not become healthy within " + START_TIMEOUT.toSeconds() + " s; its log: "
                + Files.readString(dir.resolve(member.name() + ".log")).lines().reduce((a, b) -> b).orElse("(empty)"));
    }

    /** The last lines each member logged, to tell why a test found no leader among the masters. */
    public String logTails() {
        StringBuilder tails = new StringBuilder();
        for (Member member : members) {
            Path log = dir.resolve(member.name() + ".log");
            try {
                List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
                tails.append("\n--- etcd ").append(member.name()).append(":\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size())));
            } catch (IOException e) {
                tails.append("\n--- etcd ").append(member.name()).append(": unreadable: ").append(e.getMessage());
            }
        }
        return tails.toString();
    }

    /** The client URLs, comma-separated, as {@code --etcd} takes them. */
    public String endpoints() {
        return members.stream().map(Member::clientUrl).collect(Collectors.joining(","));
    }

    /** SIGKILL one member, as a crashed machine would lose it. */
    public void kill(int index) throws InterruptedException {
        Process process = processes.get(index);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    private void destroyAll() {
        for (Process process : processes) {
            if (process != null) {
                process.destroyForcibly();
            }
        }
        for (Process process : processes) {
            if (process != null) {
                try {
                    process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }

    @Override
    public void close() {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // the JVM is already exiting, and the hook runs anyway
        }
    }
}

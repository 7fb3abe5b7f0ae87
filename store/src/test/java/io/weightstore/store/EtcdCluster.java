package io.weightstore.store;

import java.io.IOException;
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
import java.util.List;
import java.util.UUID;
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
                cluster.members.add(new Member("e" + i, freePort(), freePort()));
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
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

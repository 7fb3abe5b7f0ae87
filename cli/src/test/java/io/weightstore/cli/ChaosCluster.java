package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.weights.ByteSizes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A cluster of real processes for the chaos suite: one master and N nodes, each node in a mount
 * namespace of its own with its pool on a private tmpfs. Nothing else on the machine sees a pool
 * file, so every read by a client crosses the data plane, as between machines. Needs root (for the
 * private mounts); without it the tests that use it are skipped with the reason.
 */
final class ChaosCluster implements AutoCloseable {
    private static final Pattern MASTER_LISTENING = Pattern.compile("master listening on [^:]+:(\\d+)");
    private static final Pattern NODE_SERVING = Pattern.compile("node (\\S+) serving .* on [^:]+:(\\d+), master");

    /** One node process and what it said about itself. */
    record Node(CliProcess process, String nodeId, int port, Path poolDir) {
        void freeze() throws IOException, InterruptedException {
            process.signal("STOP");
        }

        void thaw() throws IOException, InterruptedException {
            process.signal("CONT");
        }

        /** Inverts {@code count} bytes of the pool's data region at {@code dataOffset}, inside the node's own mount namespace. */
        void flipBytes(long dataOffset, int count) throws IOException, InterruptedException {
            String script = "import sys\n"
                    + "f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(int(sys.argv[3]))\n"
                    + "f.seek(int(sys.argv[2])); f.write(bytes(x ^ 0xFF for x in b)); f.close()\n";
            Process flip = new ProcessBuilder("nsenter", "-t", Long.toString(process.pid()), "-m", "--", "python3", "-c", script,
                    poolDir.resolve("pool").toString(), Long.toString(POOL_DATA_START + dataOffset), Integer.toString(count))
                    .inheritIO().start();
            assertThat(flip.waitFor()).as("flipping bytes in %s's pool", nodeId).isZero();
        }
    }

    /** The pool file's header before its data region (4 KiB). */
    private static final long POOL_DATA_START = 4096;

    private final Path dir;
    private final Path ca;
    private final CliProcess master;
    private final int masterPort;
    private final List<Node> nodes = new ArrayList<>();
    private final List<StoreClient> clients = new ArrayList<>();

    /** Skips the calling test, with the reason, where private mounts cannot be made. */
    static void assumePrivateMounts() throws IOException, InterruptedException {
        Process probe = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                "mount -t tmpfs -o size=1m tmpfs /mnt").redirectErrorStream(true).start();
        String said = new String(probe.getInputStream().readAllBytes());
        Assumptions.assumeTrue(probe.waitFor() == 0, "private tmpfs mounts need root and unshare: " + said.strip());
    }

    /** Node pools take nine tenths of their tmpfs, which also holds the pool's header. */
    ChaosCluster(Path dir, int nodeCount, String sliceSize, String nodeCapacity, String... nodeFlags) throws Exception {
        this(dir, null, List.of(), nodeCount, sliceSize, nodeCapacity, nodeFlags);
    }

    /** An insecure cluster whose master also takes {@code masterFlags} (replication settings, say). */
    static ChaosCluster withMasterFlags(Path dir, List<String> masterFlags, int nodeCount, String sliceSize, String nodeCapacity,
            String... nodeFlags) throws Exception {
        return new ChaosCluster(dir, null, masterFlags, nodeCount, sliceSize, nodeCapacity, nodeFlags);
    }

    /**
     * A cluster whose master and nodes run with credentials of the CA in {@code ca} (as 'cert init' made
     * it), issued here through the CLI: {@code master}, and {@code node-0} …; the master takes the
     * tokens the CA issued so far. With a null {@code ca}, every process runs {@code --insecure}.
     */
    static ChaosCluster secure(Path dir, Path ca, int nodeCount, String sliceSize, String nodeCapacity) throws Exception {
        return secure(dir, ca, List.of(), nodeCount, sliceSize, nodeCapacity);
    }

    /** As {@link #secure(Path, Path, int, String, String)}, with a master that also takes {@code masterFlags}. */
    static ChaosCluster secure(Path dir, Path ca, List<String> masterFlags, int nodeCount, String sliceSize, String nodeCapacity)
            throws Exception {
        return new ChaosCluster(dir, ca, masterFlags, nodeCount, sliceSize, nodeCapacity);
    }

    private ChaosCluster(Path dir, Path ca, List<String> masterFlags, int nodeCount, String sliceSize, String nodeCapacity,
            String... nodeFlags) throws Exception {
        assumePrivateMounts();
        this.dir = Files.createDirectories(dir);
        this.ca = ca;
        List<String> masterArgs = new ArrayList<>(List.of("master", "--port", "0", "--bind", "127.0.0.1", "--data-dir",
                dir.resolve("master").toString(), "--slice-size", sliceSize));
        masterArgs.addAll(ca == null ? List.of("--insecure") : List.of("--credentials", credentials("master", "master").toString(),
                "--tokens", ca.resolve("tokens").toString()));
        masterArgs.addAll(masterFlags);
        master = CliProcess.start(dir.resolve("master.log"), masterArgs.toArray(String[]::new));
        // Whatever fails from here (a timed-out wait is an AssertionError), the processes already started are stopped.
        try {
            masterPort = Integer.parseInt(await(master, MASTER_LISTENING, "the master to listen").group(1));
            for (int i = 0; i < nodeCount; i++) {
                nodes.add(startNode(i, nodeCapacity, nodeFlags));
            }
            Awaits.until(Duration.ofSeconds(30), "every node up", () -> {
                try (StoreClient client = StoreClient.connect(master(), clientOptions())) {
                    return client.status().nodesUp() == nodeCount;
                }
            });
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
    }

    private Node startNode(int index, String capacity, String... flags) throws Exception {
        Path poolDir = Files.createDirectories(dir.resolve("node" + index));
        List<String> wrapper = List.of("unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                "mount -t tmpfs -o size=" + capacity + " tmpfs \"$0\" && exec \"$@\"", poolDir.toString());
        List<String> args = new ArrayList<>(List.of("node", "--master", master(), "--pool", poolDir.resolve("pool").toString(),
                "--capacity", Long.toString(ByteSizes.parse(capacity) * 9 / 10), "--port", "0", "--bind", "127.0.0.1", "--advertise", "127.0.0.1"));
        args.addAll(ca == null ? List.of("--insecure") : List.of("--credentials", credentials("node", "node-" + index).toString()));
        args.addAll(List.of(flags));
        CliProcess process = CliProcess.start(dir.resolve("node" + index + ".log"), Map.of(), wrapper, args.toArray(String[]::new));
        Matcher serving = await(process, NODE_SERVING, "node " + index + " to serve");
        return new Node(process, serving.group(1), Integer.parseInt(serving.group(2)), poolDir);
    }

    private static Matcher await(CliProcess process, Pattern line, String what) throws Exception {
        Matcher[] found = new Matcher[1];
        Awaits.until(Duration.ofSeconds(60), what, () -> {
            if (!process.isAlive()) {
                throw new AssertionError(what + ": the process exited:\n" + process.output());
            }
            Matcher m = line.matcher(process.output());
            if (m.find()) {
                found[0] = m;
                return true;
            }
            return false;
        });
        return found[0];
    }

    /** Credentials of this cluster's CA for {@code name} in {@code role}, issued through the CLI on first use. */
    Path credentials(String role, String name) {
        Path out = dir.resolve("credentials").resolve(name);
        if (!Files.exists(out)) {
            CliRun issued = CliRun.of("cert", "issue", "--dir", ca.toString(), "--role", role, "--name", name, "--out", out.toString(),
                    "--host", "127.0.0.1");
            assertThat(issued.exitCode()).as("cert issue %s %s: %s", role, name, issued.err()).isZero();
        }
        return out;
    }

    private ClientOptions clientOptions() throws StoreException {
        ClientOptions options = ClientOptions.defaults();
        return ca == null ? options
                : options.withAuthentication(new Authentication.Certificate(Credentials.load(credentials("admin", "admin"))));
    }

    String master() {
        return "127.0.0.1:" + masterPort;
    }

    CliProcess masterProcess() {
        return master;
    }

    Node node(int index) {
        return nodes.get(index);
    }

    Node nodeById(String nodeId) {
        return nodes.stream().filter(n -> n.nodeId().equals(nodeId)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + nodeId));
    }

    /** A client in this process; the pools are invisible here, so it reads over the data plane. */
    StoreClient client() throws StoreException {
        StoreClient client = StoreClient.connect(master(), clientOptions());
        clients.add(client);
        return client;
    }

    @Override
    public void close() throws Exception {
        for (StoreClient client : clients) {
            client.close();
        }
        for (Node node : nodes) {
            if (node.process().isAlive()) {
                node.thaw();
                node.process().kill();
            }
        }
        master.kill();
    }
}

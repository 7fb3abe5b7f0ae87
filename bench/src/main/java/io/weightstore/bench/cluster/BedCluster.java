package io.weightstore.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

/**
 * A weightstore cluster on a {@link HostBed}: the master on one host and a storage node on each of
 * some others, each the {@code weightstore} CLI in a process of its own. The servers run
 * {@code --insecure}: the bed's hosts reach nothing but each other. Each node's pool is in its host's
 * private tmpfs, so only a client on that host can map it; every other client reads it over the
 * bed's network, through both hosts' shaped NICs.
 */
public final class BedCluster implements AutoCloseable {
    public static final int MASTER_PORT = 7070;
    public static final int NODE_PORT = 7071;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HostBed bed;
    private final Path logs;
    private final Host masterHost;
    private final List<Host> nodeHosts;
    private final List<HostProcess> servers = new ArrayList<>();

    private BedCluster(HostBed bed, Host masterHost, List<Host> nodeHosts, Path logs) {
        this.bed = bed;
        this.masterHost = masterHost;
        this.nodeHosts = List.copyOf(nodeHosts);
        this.logs = logs;
    }

    /**
     * Starts the master on {@code masterHost} (with {@code masterFlags} added, such as a slice size)
     * and a node with a pool of {@code nodeCapacity} bytes on each of {@code nodeHosts}; returns once
     * every node is registered and up. Logs go to {@code logs}/master.log and node-HOST.log.
     */
    public static BedCluster start(HostBed bed, Host masterHost, List<Host> nodeHosts, long nodeCapacity, List<String> masterFlags,
            Path logs) throws IOException, InterruptedException, TimeoutException {
        BedCluster cluster = new BedCluster(bed, masterHost, nodeHosts, logs);
        try {
            List<String> master = new ArrayList<>(List.of("master", "--data-dir", bed.privateDir().resolve("master").toString(),
                    "--bind", masterHost.address(), "--port", Integer.toString(MASTER_PORT), "--insecure"));
            master.addAll(masterFlags);
            cluster.servers.add(masterHost.startListening(logs.resolve("master.log"), MASTER_PORT, START_TIMEOUT,
                    cluster.cli(master.toArray(String[]::new))));
            for (Host host : nodeHosts) {
                cluster.servers.add(host.startListening(logs.resolve("node-" + host.index() + ".log"), NODE_PORT, START_TIMEOUT,
                        cluster.cli("node", "--master", cluster.master(), "--pool", bed.privateDir().resolve("pool").toString(),
                                "--capacity", Math.ceilDiv(nodeCapacity, 1L << 20) + "M", "--bind", host.address(), "--advertise",
                                host.address(), "--port", Integer.toString(NODE_PORT), "--insecure")));
            }
            cluster.awaitNodesUp(START_TIMEOUT);
            return cluster;
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** The master's address, as {@code --store} takes it. */
    public String master() {
        return masterHost.address() + ":" + MASTER_PORT;
    }

    public Host masterHost() {
        return masterHost;
    }

    public List<Host> nodeHosts() {
        return nodeHosts;
    }

    /** The command line that runs the {@code weightstore} CLI with {@code args} on this cluster's bed; see {@link #cli(HostBed, String...)}. */
    public List<String> cli(String... args) {
        return cli(bed, args);
    }

    /**
     * The command line that runs the {@code weightstore} CLI with {@code args} on a host of {@code bed}:
     * this JVM's java and class path (which holds the CLI), the launcher's JVM flags, and a home in
     * the host's private directory. The caller's store selection and credentials are dropped, so only
     * the arguments pick the store.
     */
    public static List<String> cli(HostBed bed, String... args) {
        List<String> command = new ArrayList<>(List.of("env", "-u", "WEIGHTSTORE_MASTER", "-u", "WEIGHTSTORE_CONFIG", "-u",
                "WEIGHTSTORE_CREDENTIALS", "-u", "WEIGHTSTORE_TOKEN", "WEIGHTSTORE_HOME=" + bed.privateDir().resolve("home"),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"),
                "io.weightstore.cli.WeightstoreCli"));
        command.addAll(List.of(args));
        return command;
    }

    /** Runs the CLI on {@code host} to its end. */
    public Host.Completed run(Host host, String... args) throws IOException, InterruptedException, TimeoutException {
        return host.run(COMMAND_TIMEOUT, cli(args));
    }

    /** Runs the CLI on {@code host} to its end, failing with the end of its output unless it exits 0. */
    public String check(Host host, String... args) throws IOException, InterruptedException, TimeoutException {
        Host.Completed done = run(host, args);
        if (done.exitCode() != 0) {
            throw new IOException("weightstore " + args[0] + (args.length > 1 ? " " + args[1] : "") + " on " + host + " failed (exit "
                    + done.exitCode() + "): " + HostProcess.tail(done.output()));
        }
        return done.output();
    }

    /** Imports the checkpoint in {@code source} (a directory {@code from} sees) as {@code id}. */
    public void importCheckpoint(Host from, Path source, String id, int replicas, int connections)
            throws IOException, InterruptedException, TimeoutException {
        check(from, "model", "import", "--checkpoint-id", id, "--model-id", "bench/synthetic", "--source", source.toString(),
                "--replicas", Integer.toString(replicas), "--store", master(), "--connections", Integer.toString(connections));
    }

    /** How many nodes the master counts as up, asked from the master's own host. */
    public int nodesUp() throws IOException, InterruptedException, TimeoutException {
        Host.Completed status = run(masterHost, "store", "status", "--store", master(), "--json");
        if (status.exitCode() != 0) {
            return -1;
        }
        int up = 0;
        for (JsonNode node : json(status.output()).get("nodes")) {
            up += node.get("up").asBoolean() ? 1 : 0;
        }
        return up;
    }

    /**
     * Each node the master knows, by id, and the host of this cluster it runs on (found by the
     * address it registered with); a node at another address is left out.
     */
    public Map<String, Host> hostsByNode() throws IOException, InterruptedException, TimeoutException {
        Map<String, Host> hosts = new HashMap<>();
        for (JsonNode node : json(check(masterHost, "store", "status", "--store", master(), "--json")).get("nodes")) {
            String address = node.get("info").get("endpoint").get("host").asText();
            nodeHosts.stream().filter(h -> h.address().equals(address)).findFirst()
                    .ifPresent(h -> hosts.put(node.get("info").get("nodeId").asText(), h));
        }
        return hosts;
    }

    /** Waits until the master counts every node up (after a start, or a partition healed). */
    public void awaitNodesUp(Duration timeout) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int up;
        while ((up = nodesUp()) != nodeHosts.size()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(up + " of " + nodeHosts.size() + " nodes up after " + timeout.toSeconds() + " s; logs in "
                        + logs);
            }
            Thread.sleep(500);
        }
    }

    /** Stops the servers, the nodes first. */
    @Override
    public void close() {
        IntStream.range(0, servers.size()).map(i -> servers.size() - 1 - i).forEach(i -> servers.get(i).stop());
    }

    /** The JSON value in a CLI's output (after any warnings the JVM printed first). */
    static JsonNode json(String output) throws IOException {
        int start = output.startsWith("[") || output.startsWith("{") ? 0
                : IntStream.of(output.indexOf("\n["), output.indexOf("\n{")).filter(i -> i >= 0).min().orElse(-1);
        if (start < 0) {
            throw new IOException("no JSON in: " + HostProcess.tail(output));
        }
        return JSON.readTree(output.substring(start));
    }
}

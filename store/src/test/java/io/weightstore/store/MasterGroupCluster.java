package io.weightstore.store;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.ha.GroupSettings;
import io.weightstore.store.ha.MasterGroup;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A group of masters on a real etcd, and storage nodes that follow its leader, all on loopback.
 * Masters run in this JVM (for contract tests) or each in a JVM of its own (for tests that kill or
 * freeze them: their logs go to {@code dir/master-i.log}). Nodes run in this JVM.
 */
public final class MasterGroupCluster implements AutoCloseable {
    /** One master, wherever it runs. */
    private sealed interface Master permits InProcess, Child {
        String address();

        void close() throws Exception;
    }

    private record InProcess(MasterGroup group) implements Master {
        @Override
        public String address() {
            return group.address();
        }

        @Override
        public void close() {
            group.close();
        }
    }

    private record Child(ChildProcess process, String address) implements Master {
        @Override
        public void close() throws InterruptedException {
            process.kill();
        }
    }

    private final Path dir;
    private final EtcdCluster etcd;
    private final List<Master> masters = new ArrayList<>();
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<StoreClient> clients = new ArrayList<>();

    public MasterGroupCluster(Path dir, EtcdCluster etcd, String cluster, int masterCount, int nodeCount, boolean separateProcesses)
            throws IOException {
        this.dir = dir;
        this.etcd = etcd;
        try {
            for (int i = 0; i < masterCount; i++) {
                if (separateProcesses) {
                    ChildProcess child = ChildProcess.start(ProcessBuilder.Redirect.appendTo(dir.resolve("master-" + i + ".log").toFile()),
                            "group-master", etcd.endpoints(), cluster);
                    masters.add(new Child(child, "127.0.0.1:" + child.detail()));
                } else {
                    masters.add(new InProcess(MasterGroup.start(GroupSettings.of(etcd.endpoints(), cluster), TestCluster.config(),
                            "127.0.0.1", 0, MasterSecurity.insecure())));
                }
            }
            for (int i = 0; i < nodeCount; i++) {
                nodes.add(StorageNode.start(masterList(), NodeOptions.loopback(dir.resolve("node" + i + ".pool"), TestCluster.NODE_CAPACITY)));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Every master, as {@code --store} takes them. */
    public String masterList() {
        return masters.stream().map(Master::address).collect(Collectors.joining(","));
    }

    public String address(int master) {
        return masters.get(master).address();
    }

    /** The metrics of a master that runs in this JVM. */
    public MasterMetrics metricsOf(int master) {
        if (!(masters.get(master) instanceof InProcess(MasterGroup group))) {
            throw new IllegalStateException("master " + master + " runs in a process of its own");
        }
        return group.metrics();
    }

    public int masters() {
        return masters.size();
    }

    /** A client of the group that reads over the nodes' sockets. */
    public StoreClient client() throws StoreException {
        return client(ClientOptions.defaults().withSameHostPath(false));
    }

    public StoreClient client(ClientOptions options) throws StoreException {
        StoreClient client = StoreClient.connect(masterList(), options);
        clients.add(client);
        return client;
    }

    /** The status as {@code master} alone answers it: only the leader does. */
    public Optional<StoreStatus> statusOf(int master) {
        try {
            return Optional.of(askStatus(master));
        } catch (StoreException e) {
            return Optional.empty();
        }
    }

    private StoreStatus askStatus(int master) throws StoreException {
        try (MasterApi one = GrpcMasterApi.connect(address(master), Authentication.insecure(), Optional.empty(), Duration.ofSeconds(1))) {
            return one.status();
        }
    }

    /**
     * Waits until one master other than {@code except} (-1 for any) answers as leader, and returns its
     * index; fails after {@code timeout}.
     */
    public int awaitLeader(int except, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String[] lastAnswers = new String[masters.size()];
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < masters.size(); i++) {
                if (i == except || !isRunning(i)) {
                    lastAnswers[i] = i == except ? "excluded" : "nothing: its process exited with " + process(i).exitValue();
                    continue;
                }
                try {
                    askStatus(i);
                    return i;
                } catch (StoreException e) {
                    lastAnswers[i] = e.getMessage();
                }
            }
            Thread.sleep(20);
        }
        StringBuilder answers = new StringBuilder();
        for (int i = 0; i < masters.size(); i++) {
            answers.append("\n  master ").append(i).append(" (").append(address(i)).append(") last answered: ").append(lastAnswers[i]);
        }
        throw new AssertionError("no master " + (except < 0 ? "" : "other than " + address(except) + " ") + "led within " + timeout
                + answers + logTails() + etcd.logTails());
    }

    /** The last lines each master in a JVM of its own logged, to tell why a test found no leader. */
    private String logTails() {
        StringBuilder tails = new StringBuilder();
        for (int i = 0; i < masters.size(); i++) {
            Path log = dir.resolve("master-" + i + ".log");
            if (Files.exists(log)) {
                try {
                    List<String> lines = Files.readAllLines(log);
                    tails.append("\n--- ").append(log).append(":\n")
                            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size())));
                } catch (IOException e) {
                    tails.append("\n--- ").append(log).append(": unreadable: ").append(e.getMessage());
                }
            }
        }
        return tails.toString();
    }

    private boolean isRunning(int master) {
        return !(masters.get(master) instanceof Child child) || child.process().isAlive();
    }

    private ChildProcess process(int master) {
        if (masters.get(master) instanceof Child child) {
            return child.process();
        }
        throw new IllegalStateException("master " + master + " runs in this JVM; signals need separate processes");
    }

    /** SIGKILL one master. */
    public void kill(int master) throws InterruptedException {
        process(master).kill();
    }

    /** SIGSTOP: the master freezes with its connections open, as behind a partition. */
    public void freeze(int master) throws IOException, InterruptedException {
        process(master).signal("STOP");
    }

    public void thaw(int master) throws IOException, InterruptedException {
        process(master).signal("CONT");
    }

    /** Closes one master in this JVM: it hands the leadership over at once. */
    public void shutDown(int master) throws Exception {
        masters.get(master).close();
    }

    @Override
    public void close() {
        for (StoreClient client : clients) {
            client.close();
        }
        for (StorageNode node : nodes) {
            try {
                node.close();
            } catch (StoreException e) {
                // closing anyway
            }
        }
        for (Master master : masters) {
            try {
                master.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}

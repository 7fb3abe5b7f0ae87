package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Awaits;
import io.weightstore.store.Bytes;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.CopyProgress;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.master.ReplicationConfig;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.lang.foreign.Arena;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master that restarts forgets the copies it ordered and counts their room free, so a node must
 * not go on writing them once it registers with the new one: the room may already be a new put's.
 */
class CopiesAcrossAMasterRestartTest {
    /** A slice a minute: a copy queued behind the first sleeps its turn far longer than the test runs. */
    private static final long COPY_RATE = TestCluster.SLICE / 60;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** What the target node told its master and heard back, in order. */
    private sealed interface Call {}

    private record Registered() implements Call {}

    private record Heartbeat(NodeReport report, NodeOrders orders) implements Call {}

    private final List<Call> calls = new CopyOnWriteArrayList<>();

    @Test
    void aCopyTheOldMasterOrderedHasStoppedWhenTheNodeRegistersWithTheNewOne() throws Exception {
        MasterConfig config = TestCluster.config().withReplication(ReplicationConfig.defaults().withCopyBytesPerSecond(COPY_RATE));
        MasterServer master = MasterServer.start(tmp.resolve("master"), config, "127.0.0.1", 0, MasterSecurity.insecure());
        int port = master.port();
        String address = "127.0.0.1:" + port;
        try (Arena arena = Arena.ofShared();
                StorageNode source = StorageNode.start(address, NodeOptions.loopback(tmp.resolve("source.pool"), TestCluster.NODE_CAPACITY));
                StoreClient client = StoreClient.connect(address, ClientOptions.defaults().withSameHostPath(false))) {
            client.put("k", Bytes.random(arena, 3 * TestCluster.SLICE, 5), PutOptions.defaults().withReplicas(1));
            try (StorageNode target = StorageNode.start(recording(MasterClients.connect(address, Authentication.insecure())),
                    NodeOptions.loopback(tmp.resolve("target.pool"), TestCluster.NODE_CAPACITY), Optional.empty())) {
                client.setReplicas(List.of("k"), 2, false);
                // The first copy goes at once; one that has not started after it is waiting its turn at the rate.
                Awaits.until(PATIENCE, "a copy to wait its turn after a first one was written", () -> heartbeats().stream()
                        .anyMatch(h -> h.report().load().bytesCopied() >= TestCluster.SLICE
                                && h.report().copies().stream().anyMatch(c -> c.bytesDone() == 0)));
                Set<String> ordered = heartbeats().stream().flatMap(h -> h.orders().copies().stream()).map(CopyTask::taskId)
                        .collect(Collectors.toSet());
                int before = calls.size();

                master.close();
                master = MasterServer.start(tmp.resolve("master"), config, "127.0.0.1", port, MasterSecurity.insecure());
                Awaits.until(PATIENCE, "the target to register with the new master and heartbeat",
                        () -> registeredSince(before).stream().anyMatch(c -> c instanceof Heartbeat));

                Heartbeat first = registeredSince(before).stream().filter(c -> c instanceof Heartbeat).map(Heartbeat.class::cast)
                        .findFirst().orElseThrow();
                assertThat(first.report().copies()).extracting(CopyProgress::taskId)
                        .as("copies still running when the node registered with the new master").doesNotContainAnyElementsOf(ordered);
            }
        } finally {
            master.close();
        }
    }

    /** The calls from the first registration after call number {@code from} on. */
    private List<Call> registeredSince(int from) {
        List<Call> all = List.copyOf(calls);
        return all.subList(from, all.size()).stream().dropWhile(c -> !(c instanceof Registered)).toList();
    }

    private List<Heartbeat> heartbeats() {
        return calls.stream().filter(c -> c instanceof Heartbeat).map(Heartbeat.class::cast).toList();
    }

    /** {@code master} as the node sees it, with every registration and heartbeat it answered recorded in {@link #calls}. */
    private MasterApi recording(MasterApi master) {
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(master, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    switch (method.getName()) {
                        case "registerNode" -> calls.add(new Registered());
                        case "heartbeat" -> calls.add(new Heartbeat((NodeReport) args[0], (NodeOrders) answer));
                        default -> {}
                    }
                    return answer;
                });
    }
}

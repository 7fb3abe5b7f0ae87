package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Awaits;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's heartbeats are its membership: nothing one heartbeat throws may end them. */
class NodeHeartbeatsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    private final AtomicInteger heartbeats = new AtomicInteger();

    @Test
    void heartbeatsThatThrowUnexpectedlyAreRetriedAtTheNextInterval() throws Exception {
        try (MasterServer master = MasterServer.start(tmp.resolve("master"), TestCluster.config(), "127.0.0.1", 0,
                MasterSecurity.insecure());
                StorageNode node = StorageNode.start(failingFirstHeartbeats(MasterClients.connect("127.0.0.1:" + master.port(),
                        Authentication.insecure())), NodeOptions.loopback(tmp.resolve("node.pool"), TestCluster.NODE_CAPACITY),
                        Optional.empty())) {
            Awaits.until(PATIENCE, "heartbeats after two that threw", () -> heartbeats.get() >= 4);
            assertThat(node.isRegistered()).as("registered after heartbeats resumed").isTrue();
        }
    }

    /**
     * {@code master} as the node sees it, but its first heartbeat throws as a bug in a client would, and its second as a
     * class that failed to load does.
     */
    private MasterApi failingFirstHeartbeats(MasterApi master) {
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("heartbeat")) {
                        switch (heartbeats.incrementAndGet()) {
                            case 1 -> throw new IllegalStateException("a heartbeat's unexpected failure");
                            case 2 -> throw new NoClassDefFoundError("io/weightstore/store/api/NodeReport");
                            default -> {}
                        }
                    }
                    try {
                        return method.invoke(master, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}

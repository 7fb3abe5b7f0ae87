package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.SocketAlgorithms;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.security.MasterSecurity;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's answers and a client's writes go out under the TCP congestion control each was given, whatever the host's
 * default, and a client whose algorithm the kernel refuses goes on under the host's: {@code ss} reads it off the
 * kernel's sockets on both ends of the data plane.
 */
class NodeCongestionControlTest {
    private static final CongestionControl RENO = new CongestionControl("reno");

    @TempDir
    Path dir;

    @Test
    void theConnectionsANodeAcceptsAndAClientOpensSendUnderTheAlgorithmsTheyWereGiven() throws Exception {
        // Neither the host's default nor the node's, so that only the client's setting can put it on its sockets.
        String host = SocketAlgorithms.hostDefault();
        String clientAlgorithm = Stream.of("cubic", "bbr").filter(name -> !name.equals(host)).filter(SocketAlgorithms.available()::contains).findFirst()
                .orElse(null);
        assumeTrue(clientAlgorithm != null, "this kernel offers no algorithm but " + host + " and reno");
        try (MasterServer master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0,
                MasterSecurity.insecure());
                StorageNode node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(dir.resolve("pool"), 64 << 20)
                        .withCongestionControl(RENO));
                StoreClient client = StoreClient.connect("127.0.0.1:" + master.port(), ClientOptions.defaults().withSameHostPath(false)
                        .withCongestionControl(new CongestionControl(clientAlgorithm)))) {
            assertThat(node.congestionControl()).isEqualTo("reno");
            // The put's connection stays in the client's pool, open at both ends, for ss to read.
            client.put("object", new byte[1 << 20], PutOptions.defaults());
            assertThat(SocketAlgorithms.of("sport = :" + node.port())).as("the node's end").containsExactly("reno");
            assertThat(SocketAlgorithms.of("dport = :" + node.port())).as("the client's end").containsExactly(clientAlgorithm);
        }
    }

    @Test
    void aClientGivenAnAlgorithmTheKernelLacksStillWritesAndReadsUnderTheHostsDefault() throws Exception {
        String host = SocketAlgorithms.hostDefault();
        byte[] bytes = new byte[1 << 20];
        new SplittableRandom(7).nextBytes(bytes);
        try (MasterServer master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0,
                MasterSecurity.insecure());
                StorageNode node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(dir.resolve("pool"), 64 << 20));
                StoreClient client = StoreClient.connect("127.0.0.1:" + master.port(), ClientOptions.defaults().withSameHostPath(false)
                        .withCongestionControl(new CongestionControl("no_such_cc")))) {
            client.put("object", bytes, PutOptions.defaults());
            assertThat(client.readAll("object")).isEqualTo(bytes);
            assertThat(SocketAlgorithms.of("dport = :" + node.port())).as("the client's end").containsExactly(host);
        }
    }

    @Test
    void aNodeGivenAnAlgorithmTheKernelLacksRefusesToStartAndCreatesNoPool() throws Exception {
        Path pool = dir.resolve("never.pool");
        try (MasterServer master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0,
                MasterSecurity.insecure())) {
            assertThatThrownBy(() -> StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(pool, 64 << 20)
                    .withCongestionControl(new CongestionControl("no_such_cc"))))
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreException.Code.INVALID_ARGUMENT))
                    .hasMessageStartingWith("node data plane: the kernel refused TCP congestion control 'no_such_cc'");
        }
        assertThat(pool).doesNotExist();
    }
}

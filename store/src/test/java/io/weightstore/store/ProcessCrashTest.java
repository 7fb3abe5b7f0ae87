package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behaviour across real processes: a master killed with SIGKILL, and the embedded store's one-holder rule. */
class ProcessCrashTest {
    @TempDir
    Path tmp;

    @Test
    void masterKilledWithSigkillRestartsWithEverySealedObject() throws Exception {
        Path data = tmp.resolve("master");
        ChildProcess first = ChildProcess.start("master", data.toString(), "0");
        int port = Integer.parseInt(first.detail());
        try (Arena arena = Arena.ofShared();
                StorageNode node = StorageNode.start("127.0.0.1:" + port, NodeOptions.loopback(tmp.resolve("n.pool"), 64 << 20))) {
            MemorySegment bytes = Bytes.random(arena, 5 * TestCluster.SLICE, 1);
            try (StoreClient client = StoreClient.connect("127.0.0.1:" + port, ClientOptions.defaults().withSameHostPath(false))) {
                for (int i = 0; i < 5; i++) {
                    client.put("crash/" + i, bytes, PutOptions.defaults());
                }
            }
            first.kill();
            try (ChildProcess second = ChildProcess.start("master", data.toString(), String.valueOf(port));
                    StoreClient client = StoreClient.connect("127.0.0.1:" + port, ClientOptions.defaults().withSameHostPath(false))) {
                assertThat(client.list("crash/")).hasSize(5);
                assertThat(Bytes.equal(Bytes.readWhole(client, "crash/4", arena), bytes)).isTrue();
            }
        }
    }

    @Test
    void secondProcessOnTheEmbeddedStoreIsToldWhoHoldsItButNotItsArguments() throws Exception {
        Path home = tmp.resolve("home");
        try (ChildProcess holder = ChildProcess.start("hold-embedded", home.toString(), "--api-key=s3cret-key")) {
            assertThatThrownBy(() -> EmbeddedStore.open(home, 16 << 20, ClientOptions.defaults()))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.HELD))
                    .hasMessageContaining("pid " + holder.pid() + " (java)").hasMessageContaining(home.toString())
                    .hasMessageNotContaining("s3cret-key");
            assertThat(Files.readString(home.resolve("LOCK"))).contains("pid " + holder.pid()).doesNotContain("s3cret-key");
        }
        // Once the holder is gone (even killed), the store opens again.
        EmbeddedStore.open(home, 16 << 20, ClientOptions.defaults()).close();
    }

    @Test
    void secondOpenInTheSameProcessIsRefusedToo() throws Exception {
        Path home = tmp.resolve("home");
        try (StoreClient first = EmbeddedStore.open(home, 16 << 20, ClientOptions.defaults())) {
            assertThatThrownBy(() -> EmbeddedStore.open(home, 16 << 20, ClientOptions.defaults()))
                    .hasMessageContaining("pid " + ProcessHandle.current().pid());
        }
    }
}

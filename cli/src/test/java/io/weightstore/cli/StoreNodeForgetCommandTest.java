package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code store node forget}: what it refuses and what it drops, on a real loopback cluster of three nodes. */
class StoreNodeForgetCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private Path file;

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        byte[] bytes = new byte[(int) (6 * TestCluster.SLICE)];
        new Random(3).nextBytes(bytes);
        file = Files.write(tmp.resolve("data.bin"), bytes);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private CliRun run(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--store";
        all[args.length + 1] = cluster.masterAddress();
        return CliRun.of(all);
    }

    @Test
    void aNodeGoneForGoodIsForgottenWithItsReplicas() throws Exception {
        assertThat(run("store", "put", "two", file.toString(), "--replicas", "2", "--slice-size", "1M").exitCode()).isZero();
        String gone = cluster.node(1).nodeId();
        CliRun refused = run("store", "node", "forget", gone);
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("node " + gone + " is up", "--force");

        cluster.stopNode(1);
        cluster.awaitDown(gone);
        CliRun forgot = run("store", "node", "forget", gone, "--json");
        assertThat(forgot.exitCode()).as(forgot.err()).isZero();
        JsonNode json = JSON.readTree(forgot.out());
        assertThat(json.get("nodeId").asText()).isEqualTo(gone);
        assertThat(json.get("objects").asInt()).isEqualTo(1);
        assertThat(json.get("replicas").asInt()).isPositive();

        CliRun status = run("store", "status");
        assertThat(status.out()).doesNotContain(gone).contains(cluster.node(0).nodeId(), cluster.node(2).nodeId());
        try (StoreClient client = cluster.client()) {
            for (SliceMeta slice : client.stat("two").slices()) {
                assertThat(slice.nodeIds()).isNotEmpty().doesNotContain(gone);
            }
        }
        Path back = tmp.resolve("back.bin");
        assertThat(run("store", "get", "two", back.toString()).exitCode()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(file));

        CliRun again = run("store", "node", "forget", gone);
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("no node " + gone);
    }

    @Test
    void aNodeHoldingTheOnlyCopyOfASliceIsNotForgotten() throws Exception {
        assertThat(run("store", "put", "single", file.toString(), "--slice-size", "1M").exitCode()).isZero();
        String holder;
        int slice;
        try (StoreClient client = cluster.client()) {
            holder = client.stat("single").slice(0).nodeIds().getFirst();
            slice = 0;
        }
        cluster.stopNode(cluster.indexOf(holder));
        cluster.awaitDown(holder);
        for (String[] forget : new String[][] {{"store", "node", "forget", holder}, {"store", "node", "forget", holder, "--force"}}) {
            CliRun refused = run(forget);
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.err()).contains("node " + holder + " holds the only copy of slice " + slice + " of single");
        }
        assertThat(run("store", "status").out()).contains(holder);
        assertThat(run("store", "rm", "single").exitCode()).isZero();
        assertThat(run("store", "node", "forget", holder).exitCode()).isZero();
    }
}

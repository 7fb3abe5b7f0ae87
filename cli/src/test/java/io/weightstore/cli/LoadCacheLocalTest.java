package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.TestCluster;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load --cache-local} on a loopback cluster, whose pools this process can map as a node on
 * an engine's host would be: the node on this host ends with a copy of every slice of the
 * checkpoint, on top of its replica count, copied node to node, and every copy checks out.
 */
class LoadCacheLocalTest {
    private static final Pattern KEEPS = Pattern.compile("node (\\S+) on this host keeps a copy of the (\\d+) files of local");

    @TempDir
    Path tmp;

    @Test
    void theNodeOnThisHostKeepsACopyOfEveryFileItLoads() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 3)) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "local", 1);
            CliRun load = CliRun.of("load", "weightstore://local", "--cache-local", "--store", cluster.masterAddress());
            assertThat(load.exitCode()).as(load.err()).isZero();
            Matcher keeps = KEEPS.matcher(load.err());
            assertThat(keeps.find()).as(load.err()).isTrue();
            String local = keeps.group(1);
            assertThat(Integer.parseInt(keeps.group(2))).isEqualTo(files(store).size());

            Awaits.until(Duration.ofSeconds(90), "node " + local + " to hold a copy of every slice", () -> files(store).stream()
                    .allMatch(o -> o.slices().stream().allMatch(s -> s.nodeIds().contains(local))));
            assertThat(files(store)).allSatisfy(o -> {
                assertThat(o.localCopies()).containsExactly(local);
                assertThat(o.replicas()).as("the count itself is unchanged").isEqualTo(1);
                assertThat(o.slices()).allSatisfy(s -> assertThat(s.replicas().size()).isBetween(1, 2));
            });
            CliRun verified = CliRun.of("model", "verify", "local", "--store", cluster.masterAddress());
            assertThat(verified.exitCode()).as(verified.out()).isZero();
            assertThat(TensorDigests.ofLoad(cluster.client(), "local", () -> {})).isEqualTo(checkpoint.digests());
        }
    }

    private static List<ObjectMeta> files(StoreClient store) throws Exception {
        return store.list("weights/local/files/");
    }
}

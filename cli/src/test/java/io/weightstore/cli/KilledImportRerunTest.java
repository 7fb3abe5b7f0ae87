package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.LockOwner;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12.2: an import killed with SIGKILL can be run again at once, and a refused run reserves nothing. */
class KilledImportRerunTest {
    @TempDir
    Path tmp;

    private static String[] importArgs(ChaosCluster cluster, ChaosCheckpoint checkpoint, String id) {
        return new String[] {"model", "import", "--store", cluster.master(), "--checkpoint-id", id, "--model-id", "chaos/model",
            "--source", checkpoint.dir().toString(), "--replicas", "2", "--parallel-files", "1"};
    }

    @Test
    void importKilledMidwayIsRunAgainAtOnceAndEndsReadyWithEveryTensorIntact() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 3, "1M", "128M")) {
            StoreClient store = cluster.client();
            CliProcess first = CliProcess.start(tmp.resolve("first.log"), importArgs(cluster, checkpoint, "killed"));
            Awaits.until(Duration.ofSeconds(60), "the first import to store two files",
                    () -> store.list("weights/killed/files/").size() >= 2);
            first.kill();

            CliProcess again = CliProcess.start(tmp.resolve("again.log"), importArgs(cluster, checkpoint, "killed"));
            assertThat(again.await()).as(again.output()).isZero();
            assertThat(again.output()).contains("READY");
            assertThat(store.status().pendingPuts()).as("the killed run's puts were reclaimed, not left to expire").isZero();
            assertThat(TensorDigests.ofLoad(store, "killed", () -> {})).isEqualTo(checkpoint.digests());
        }
    }

    @Test
    void importRefusedByAnotherWritersLockReservesNothing() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 2, "1M", "64M")) {
            StoreClient store = cluster.client();
            assertThat(store.tryLock("weights/held", LockOwner.current("import").toString(), Duration.ofMinutes(1)).held()).isTrue();
            long usedBefore = store.room().used();

            CliProcess refused = CliProcess.start(tmp.resolve("refused.log"), importArgs(cluster, checkpoint, "held"));
            assertThat(refused.await()).isEqualTo(ExitCodes.FAILURE);
            assertThat(refused.output()).contains("is locked by").doesNotContain("Exception");
            assertThat(store.status().pendingPuts()).isZero();
            assertThat(store.room().used()).isEqualTo(usedBefore);
            assertThat(store.list("weights/held/")).isEmpty();
        }
    }
}

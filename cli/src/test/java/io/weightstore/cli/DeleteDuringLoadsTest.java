package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.client.StoreClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12.4: a delete refused while loads run changes nothing; the loads finish intact; a later delete removes all. */
class DeleteDuringLoadsTest {
    private static final int LOADERS = 4;

    @TempDir
    Path tmp;

    @Test
    void deleteRefusedDuringFourLoadsChangesNothingAndSucceedsAfterThem() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 3, "1M", "128M")) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "busy", 2);
            int objects = store.list("weights/busy/").size();
            CountDownLatch midLoad = new CountDownLatch(LOADERS);
            CountDownLatch deleteTried = new CountDownLatch(1);
            List<Future<Map<String, String>>> loads = new ArrayList<>();
            ExecutorService loaders = Executors.newFixedThreadPool(LOADERS);
            for (int i = 0; i < LOADERS; i++) {
                StoreClient client = cluster.client();
                loads.add(loaders.submit(() -> TensorDigests.ofLoad(client, "busy", () -> {
                    midLoad.countDown();
                    deleteTried.await(60, TimeUnit.SECONDS);
                })));
            }
            loaders.shutdown();
            assertThat(midLoad.await(60, TimeUnit.SECONDS)).as("every loader mid-load").isTrue();

            CliProcess refused = CliProcess.start(tmp.resolve("refused.log"), "model", "delete", "busy", "--store", cluster.master());
            assertThat(refused.await()).isEqualTo(ExitCodes.FAILURE);
            assertThat(refused.output()).contains("is being read").contains("nothing was removed");
            assertThat(store.list("weights/busy/")).hasSize(objects);
            deleteTried.countDown();
            for (Future<Map<String, String>> load : loads) {
                assertThat(load.get(120, TimeUnit.SECONDS)).isEqualTo(checkpoint.digests());
            }

            CliProcess deleted = CliProcess.start(tmp.resolve("deleted.log"), "model", "delete", "busy", "--store", cluster.master());
            assertThat(deleted.await()).as(deleted.output()).isZero();
            assertThat(store.list("weights/busy/")).isEmpty();
        }
    }
}

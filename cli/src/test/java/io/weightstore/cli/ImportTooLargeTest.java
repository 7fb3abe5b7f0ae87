package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.client.StoreClient;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12.5: an import the store cannot hold is refused before it writes or evicts anything. */
class ImportTooLargeTest {
    @TempDir
    Path tmp;

    @Test
    void importLargerThanTheRoomIsRefusedWithNothingWrittenAndNothingEvicted() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 3, "1M", "24M")) {
            StoreClient store = cluster.client();
            try (Arena arena = Arena.ofShared()) {
                store.put("unpinned", arena.allocate(1 << 20), PutOptions.defaults());
            }
            long used = store.room().used();

            CliProcess big = CliProcess.start(tmp.resolve("big.log"), "model", "import", "--store", cluster.master(),
                    "--checkpoint-id", "big", "--model-id", "chaos/model", "--source", checkpoint.dir().toString(), "--replicas", "3");
            assertThat(big.await()).isEqualTo(ExitCodes.FAILURE);
            assertThat(big.output()).contains("needs").contains("nothing was written").doesNotContain("Exception");
            assertThat(store.find("unpinned")).as("nothing evicted for an import that cannot fit").isPresent();
            assertThat(store.list("weights/big/")).isEmpty();
            assertThat(store.room().used()).isEqualTo(used);
            assertThat(store.status().pendingPuts()).isZero();
        }
    }
}

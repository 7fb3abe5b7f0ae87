package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader closed by a thread being interrupted (an engine's load cancelled) still ends its lease on
 * a master over gRPC, so the object can be removed at once, not only once the lease runs out.
 */
class InterruptedCloseTest {
    @TempDir
    Path tmp;

    @Test
    void readersClosedWhileInterruptedEndTheirLeasesAndKeepTheFlag() throws Exception {
        try (TestCluster cluster = new TestCluster(tmp, 1); StoreClient store = cluster.client()) {
            for (String key : List.of("one", "a", "b")) {
                store.put(key, new byte[10], PutOptions.defaults());
            }
            ObjectReader one = store.open("one");
            List<ObjectReader> both = store.openAll(List.of("a", "b"));

            Thread.currentThread().interrupt();
            try {
                one.close();
                ObjectReader.closeAll(both);
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for the caller").isTrue();
            } finally {
                Thread.interrupted();
            }

            // Without force, a remove is refused while any lease on the keys is held.
            assertThat(store.removeAll(List.of("one", "a", "b"), false)).isEqualTo(3);
        }
    }
}

package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Awaits;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.wire.DeadlineTimer;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A copy the node cannot make for what the master's order says is reported failed, not left to be started again forever. */
class CopierTest {
    private static final long CAPACITY = 1 << 20;

    @TempDir
    Path tmp;

    @Test
    void aCopyOrderedIntoRoomOutsideThePoolIsReportedFailed() throws Exception {
        Map<String, CopyOutcome> reported = new ConcurrentHashMap<>();
        MasterApi master = (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("finishCopy")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    reported.put((String) args[1], (CopyOutcome) args[2]);
                    return null;
                });
        NodeInfo source = new NodeInfo("source", new Endpoint("127.0.0.1", 1), "/nowhere", UUID.randomUUID(), CAPACITY);
        CopyTask outside = new CopyTask("t1", "k", 0, 4096, 4096, BlockCrcs.of(0), source, 0, CAPACITY, Ticket.none());
        try (PoolFile pool = PoolFile.openOrCreate(tmp.resolve("pool"), CAPACITY, "target");
                DeadlineTimer timer = new DeadlineTimer("test-deadlines");
                Copier copier = new Copier(pool, master, Authentication.insecure(), TransferDeadlines.defaults(), timer,
                        new NodeCounters(), new VerifiedBlocks(CAPACITY, Duration.ofSeconds(10), System::nanoTime),
                                CongestionControl.CUBIC)) {
            copier.accept(List.of(outside), 0);
            Awaits.until(Duration.ofSeconds(10), "the copy to be reported", () -> reported.containsKey("t1"));
        }
        assertThat(reported.get("t1")).isInstanceOfSatisfying(CopyOutcome.Failed.class, failed -> {
            assertThat(failed.sourceBad()).isFalse();
            assertThat(failed.why()).contains("slice 0 of k");
        });
    }
}

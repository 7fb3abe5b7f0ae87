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
import io.weightstore.store.api.StoreException;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy the node cannot make for what the master's order says is reported failed, not left to be started again forever;
 * one whose end the master heard is not started again by an answer made before it heard.
 */
class CopierTest {
    private static final long CAPACITY = 1 << 20;
    private static final NodeInfo SOURCE = new NodeInfo("source", new Endpoint("127.0.0.1", 1), "/nowhere", UUID.randomUUID(), CAPACITY);
    /** Room outside the pool: a copy the node reports failed at once. */
    private static final CopyTask OUTSIDE = new CopyTask("t1", "k", 0, 4096, 4096, BlockCrcs.of(0), SOURCE, 0, CAPACITY, Ticket.none());

    @TempDir
    Path tmp;

    private final Map<String, List<CopyOutcome>> reported = new ConcurrentHashMap<>();

    private final MasterApi master = (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(),
            new Class<?>[] {MasterApi.class}, (proxy, method, args) -> {
                if (!method.getName().equals("finishCopy")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                reported.computeIfAbsent((String) args[1], id -> new CopyOnWriteArrayList<>()).add((CopyOutcome) args[2]);
                return null;
            });

    private PoolFile pool;
    private DeadlineTimer timer;

    @BeforeEach
    void openPool() throws StoreException {
        pool = PoolFile.openOrCreate(tmp.resolve("pool"), CAPACITY, "target");
        timer = new DeadlineTimer("test-deadlines");
    }

    @AfterEach
    void closePool() throws StoreException {
        timer.close();
        pool.close();
    }

    private Copier copier(ExecutorService workers) {
        return new Copier(pool, master, Authentication.insecure(), TransferDeadlines.defaults(), timer, new NodeCounters(),
                new VerifiedBlocks(CAPACITY, Duration.ofSeconds(10), System::nanoTime), CongestionControl.CUBIC, workers);
    }

    @Test
    void aCopyOrderedIntoRoomOutsideThePoolIsReportedFailed() throws Exception {
        try (Copier copier = copier(Executors.newCachedThreadPool())) {
            copier.accept(List.of(OUTSIDE), 0);
            Awaits.until(Duration.ofSeconds(10), "the copy to be reported", () -> reported.containsKey("t1"));
        }
        assertThat(reported.get("t1")).singleElement().isInstanceOfSatisfying(CopyOutcome.Failed.class, failed -> {
            assertThat(failed.sourceBad()).isFalse();
            assertThat(failed.why()).contains("slice 0 of k");
        });
    }

    @Test
    void aCopyTheMasterHeardOfIsNotStartedAgainByAnAnswerMadeBeforeItHeard() throws Exception {
        try (Copier copier = copier(Executors.newCachedThreadPool())) {
            copier.accept(List.of(OUTSIDE), 0);
            Awaits.until(Duration.ofSeconds(10), "the copy to be reported and end", () -> reported.containsKey("t1")
                    && copier.progress().isEmpty());
            copier.accept(List.of(OUTSIDE), 0);
            Thread.sleep(500);
            assertThat(reported.get("t1")).as("outcomes reported").hasSize(1);
            assertThat(copier.progress()).as("copies running").isEmpty();
        }
    }

    @Test
    void aCopyWhoseThreadCannotStartIsNotCountedAsRunning() throws Exception {
        ExecutorService refusing = Executors.newSingleThreadExecutor();
        refusing.shutdown();
        try (Copier copier = copier(refusing)) {
            copier.accept(List.of(OUTSIDE), 0);
            assertThat(copier.progress()).as("copies running").isEmpty();
            assertThat(copier.stopAll(System.nanoTime() + Duration.ofSeconds(1).toNanos())).as("every copy stopped").isTrue();
        }
    }
}

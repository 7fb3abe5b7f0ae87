package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.CapturedErr;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Stride;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Closing a node ends what works on its pool before the pool is unmapped. */
class NodeCloseTest {
    private static final int SIZE = 32 << 20;

    @TempDir
    Path dir;

    /**
     * Column shards make the node gather rows out of its pool, so a close finds its threads at work there, not in a
     * socket: one that went on after the close found the pool unmapped and its deadline timer stopped, and logged so.
     */
    @Test
    @Timeout(120)
    void closeReturnsOnlyOnceNoThreadOfTheNodeWorksOnItsPool() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (TestCluster cluster = new TestCluster(dir, 1); Arena arena = Arena.ofShared(); CapturedErr captured = new CapturedErr(err)) {
            StoreClient client = cluster.client();
            client.put("big", new byte[SIZE], PutOptions.defaults());
            for (int round = 0; round < 5; round++) {
                String nodeId = cluster.node(0).nodeId();
                AtomicInteger reads = new AtomicInteger();
                List<Thread> readers = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    MemorySegment column = arena.allocate(SIZE / 4);
                    readers.add(Thread.ofPlatform().start(() -> {
                        try (ObjectReader reader = client.open("big")) {
                            while (true) {
                                client.read(List.of(new Read.Strided(reader, new Stride(0, 256, 1024, SIZE / 1024), column)));
                                reads.incrementAndGet();
                            }
                        } catch (IOException e) {
                            // the node closed under the read: what this test is about
                        }
                    }));
                }
                while (reads.get() < 8) {
                    Thread.sleep(5);
                }
                boolean interruptedCaller = round % 2 == 1;
                if (interruptedCaller) {
                    Thread.currentThread().interrupt(); // a close called by an interrupted thread waits all the same
                }
                cluster.stopNode(0);
                assertThat(Thread.interrupted()).as("the caller's interrupt, kept by the close").isEqualTo(interruptedCaller);
                List<String> running = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                        .filter(name -> name.equals("node-conn-" + nodeId)).toList();
                assertThat(running).as("connection threads still running on the pool after close, round %d", round).isEmpty();
                for (Thread reader : readers) {
                    assertThat(reader.join(Duration.ofSeconds(30))).as("a reader ended once its node was gone").isTrue();
                }
                assertThat(err.toString(StandardCharsets.UTF_8)).as("what was logged up to round %d", round).doesNotContain("ERROR")
                        .doesNotContain("Exception in thread");
                cluster.restartNode(0);
            }
        }
    }
}

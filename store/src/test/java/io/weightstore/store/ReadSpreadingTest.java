package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Eight loaders read the same four files at once, each its own client, from a loopback cluster;
 * the nodes count the bytes they serve. No node may serve more than 1.25 times its fair share (the
 * bytes served over the nodes). Files of uneven sizes at a replica count that does not divide the
 * nodes, so the placement is not a lucky fit for any fixed order.
 */
class ReadSpreadingTest {
    private static final int LOADERS = 8;
    private static final long[] SIZES = {(9L << 20) - 123, (14L << 20) + 5000, 5L << 20, (12L << 20) - 1};

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} nodes, {1} replicas")
    @CsvSource({"8, 2", "6, 4"})
    void eightLoadersSpreadTheirReadsOverEveryReplica(int nodes, int replicas) throws Exception {
        try (TestCluster cluster = new TestCluster(tmp, nodes); Arena arena = Arena.ofShared()) {
            StoreClient writer = cluster.client();
            MemorySegment[] files = new MemorySegment[SIZES.length];
            for (int i = 0; i < SIZES.length; i++) {
                files[i] = Bytes.random(arena, SIZES[i], i);
                writer.put("ckpt/file-" + i, files[i], PutOptions.defaults().withReplicas(replicas));
            }
            long[] before = new long[nodes];
            for (int n = 0; n < nodes; n++) {
                before[n] = cluster.node(n).bytesServed();
            }
            loadAtOnce(cluster, arena, files);
            long[] served = new long[nodes];
            long total = 0;
            for (int n = 0; n < nodes; n++) {
                served[n] = cluster.node(n).bytesServed() - before[n];
                total += served[n];
            }
            double fair = (double) total / nodes;
            long most = Arrays.stream(served).max().orElseThrow();
            StringBuilder shares = new StringBuilder();
            for (long bytes : served) {
                shares.append(String.format(Locale.ROOT, " %.2f", bytes / fair));
            }
            System.out.printf(Locale.ROOT, "read spreading: %d loaders, %d nodes, %d replicas: %d MiB served, most %.3f x fair; per node:%s%n",
                    LOADERS, nodes, replicas, total >> 20, most / fair, shares);
            assertThat(total).as("every byte of every load came from a node").isEqualTo(LOADERS * Arrays.stream(SIZES).sum());
            assertThat(most / fair).as("the busiest node's share over the fair share; per node:" + shares).isLessThanOrEqualTo(1.25);
        }
    }

    /** Each loader opens the files, waits for the others, reads them whole in one scatter read, and compares every byte. */
    private static void loadAtOnce(TestCluster cluster, Arena arena, MemorySegment[] files) throws Exception {
        CyclicBarrier start = new CyclicBarrier(LOADERS);
        ExecutorService pool = Executors.newFixedThreadPool(LOADERS);
        try {
            List<Future<?>> loads = new ArrayList<>();
            for (int l = 0; l < LOADERS; l++) {
                StoreClient client = cluster.client();
                loads.add(pool.submit(() -> {
                    List<ObjectReader> open = new ArrayList<>();
                    List<Read> reads = new ArrayList<>();
                    long at = 0;
                    MemorySegment dst = arena.allocate(Arrays.stream(SIZES).sum());
                    for (int i = 0; i < SIZES.length; i++) {
                        ObjectReader reader = client.open("ckpt/file-" + i);
                        open.add(reader);
                        reads.add(new Read.Ranges(reader, List.of(new Range(0, SIZES[i])), dst.asSlice(at, SIZES[i])));
                        at += SIZES[i];
                    }
                    start.await();
                    client.read(reads);
                    open.forEach(ObjectReader::close);
                    at = 0;
                    for (int i = 0; i < SIZES.length; i++) {
                        assertThat(Bytes.equal(dst.asSlice(at, SIZES[i]), files[i])).as("file " + i).isTrue();
                        at += SIZES[i];
                    }
                    return null;
                }));
            }
            for (Future<?> load : loads) {
                load.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}

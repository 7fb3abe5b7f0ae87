package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.Awaits;
import io.weightstore.store.Bytes;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a reader's lease keeps, on a real loopback cluster of one master and three nodes. */
class ReaderLeaseOnAClusterTest {
    private static final long SIZE = 4 * TestCluster.SLICE;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient admin;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    @BeforeEach
    void start() throws StoreException {
        cluster = new TestCluster(tmp, 3);
        admin = cluster.client();
        data = Bytes.random(arena, SIZE, 7);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    /**
     * A reader that asks the master again where its object is (every copy of a piece failed) may still read the copies it
     * was given before, in jobs begun earlier or through views it mapped: the room of a copy retired meanwhile must stay
     * the object's until the reader closes, not until it relocates.
     */
    @Test
    void aCopyRetiredUnderAReaderStaysReservedAcrossItsRelocationUntilItCloses() throws Exception {
        // Of other sizes: which retired copy a pass frees shows in the room it gives back.
        admin.put("held", data, PutOptions.defaults().withReplicas(2));
        admin.put("control", data.asSlice(0, SIZE / 2), PutOptions.defaults().withReplicas(2));
        StoreClient client = cluster.client(ClientOptions.defaults().withSameHostPath(false));
        ObjectReader held = client.open("held");
        ObjectReader control = client.open("control");
        assertThat(admin.setReplicas(List.of("held", "control"), 1, false)).isEqualTo(2);
        Awaits.until(PATIENCE, "both objects trimmed to one copy",
                () -> admin.stat("held").slices().stream().allMatch(s -> s.replicas().size() == 1)
                        && admin.stat("control").slices().stream().allMatch(s -> s.replicas().size() == 1));
        long retiredHeldByReaders = admin.status().used();

        held.relocate(held.located());
        control.close();
        // Both retired copies are freed in the same pass once no lease holds them: the control's going shows a pass ran.
        Awaits.until(PATIENCE, "the control's retired copy freed", () -> admin.status().used() < retiredHeldByReaders);
        long controlFreed = admin.status().used();
        assertThat(retiredHeldByReaders - controlFreed).as("room freed first: the control's retired copy alone").isEqualTo(SIZE / 2);

        MemorySegment back = arena.allocate(SIZE);
        held.read(new Range(0, SIZE), back);
        assertThat(Bytes.equal(back, data)).as("the relocated reader reads on").isTrue();
        held.close();
        Awaits.until(PATIENCE, "the relocated reader's retired copy freed once it closed", () -> admin.status().used() < controlFreed);
        assertThat(controlFreed - admin.status().used()).as("room freed when the relocated reader closed").isEqualTo(SIZE);
    }

    /**
     * Past its lease, the room a reader was given may have gone to another object's put: the reader reads no byte from the
     * nodes until the master gives it a lease again.
     */
    @Test
    void aReaderWhoseLeaseRanOutReadsNothingUntilTheMasterLeasesItTheObjectAgain() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        admin.put("k", data, PutOptions.defaults().withReplicas(2));
        StoreClient client = cluster.client(ClientOptions.defaults().withSameHostPath(false).withLeaseDuration(lease));
        MemorySegment back = arena.allocate(SIZE);
        try (ObjectReader reader = client.open("k")) {
            cluster.stopMaster();
            Thread.sleep(lease.plusMillis(200).toMillis());
            assertThatThrownBy(() -> reader.read(new Range(0, SIZE), back))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE));
            cluster.startMaster();
            Awaits.until(PATIENCE, "a lease from the master back", () -> {
                try {
                    reader.requireLeaseHeld();
                    return true;
                } catch (StoreException e) {
                    return false;
                }
            });
            reader.read(new Range(0, SIZE), back);
            assertThat(Bytes.equal(back, data)).isTrue();
        }
    }
}

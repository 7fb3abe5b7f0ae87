package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.ReplicaVerdict;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.client.access.SocketNodeAccess;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node takes a checksum block it found intact as intact for partial and strided reads, until it is
 * written, found bad by the scrubber, or its trust runs out; on a real one-node loopback cluster.
 * The nodes here trust for an hour, so whatever makes them check again is what the test did.
 */
class NodeCheckTrustTest {
    private static final int BLOCK = TestCluster.CHECKSUM_BLOCK;
    private static final long SIZE = 3 * TestCluster.SLICE + 999;
    /** Past every object these tests put: where raw writes go. */
    private static final long RAW_OFFSET = 32L << 20;
    /** A few columns of each 4 KiB row of one checksum block, as a tensor-parallel rank reads them. */
    private static final Stride COLUMNS_OF_A_BLOCK = new Stride(RAW_OFFSET + 256, 64, 4096, BLOCK / 4096);
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    /** 64 bytes of each 4 KiB row of an object of {@link #SIZE}, as a tensor-parallel rank reads a column shard. */
    private static final Stride EVERY_ROW = new Stride(128, 64, 4096, (int) (SIZE / 4096));

    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofShared();
    private TestCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        arena.close();
    }

    private TestCluster start(long scrubBytesPerSecond) throws StoreException {
        cluster = new TestCluster(tmp, 1, TestCluster.config(), options -> options.withCheckTrust(Duration.ofHours(1))
                .withScrubBytesPerSecond(scrubBytesPerSecond));
        return cluster;
    }

    @Test
    void aBlockWrittenAfterItWasVerifiedIsVerifiedAgain() throws IOException {
        start(0);
        MemorySegment first = Bytes.random(arena, BLOCK, 1);
        MemorySegment second = Bytes.random(arena, BLOCK, 2);
        BlockCheck firstCheck = new BlockCheck(RAW_OFFSET, BLOCK, Checksums.crc32c(first));
        MemorySegment columns = arena.allocate(COLUMNS_OF_A_BLOCK.bytes());
        try (DeadlineTimer timer = new DeadlineTimer("test-deadlines"); SocketNodeAccess node = new SocketNodeAccess("127.0.0.1",
                cluster.node(0).port(), cluster.node(0).poolUuid(), Optional.empty(), Ticket::none, TransferDeadlines.defaults(), timer,
                        CongestionControl.CUBIC)) {
            node.write(RAW_OFFSET, first, Ticket.none());
            node.readStrided(COLUMNS_OF_A_BLOCK, List.of(firstCheck), columns, false, OnBusy.WAIT);

            node.write(RAW_OFFSET, second, Ticket.none());
            // A reader still holding the first bytes' CRC is refused: the write made the node hash the block again.
            assertThatThrownBy(() -> node.readStrided(COLUMNS_OF_A_BLOCK, List.of(firstCheck), columns, false, OnBusy.WAIT))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
                    .hasMessageContaining("checksum mismatch");
            node.readStrided(COLUMNS_OF_A_BLOCK, List.of(new BlockCheck(RAW_OFFSET, BLOCK, Checksums.crc32c(second))), columns, false,
                    OnBusy.WAIT);
            assertThat(columns.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo(second.get(ValueLayout.JAVA_BYTE, 256));
        }
    }

    @Test
    void aCorruptBlockIsRefusedOnTheFirstReadAfterTheScrubberFlagsIt() throws Exception {
        start(64_000_000);
        StoreClient client = cluster.client();
        MemorySegment data = Bytes.random(arena, SIZE, 3);
        client.put("scrubbed", data, PutOptions.defaults().withReplicas(1));
        MemorySegment columns = arena.allocate(EVERY_ROW.bytes());
        // Byte 130 of row 17 of slice 1: one the strided read returns.
        long inSlice = 17 * 4096 + 130;
        long row = (TestCluster.SLICE + inSlice) / 4096;
        try (ObjectReader object = client.open("scrubbed")) {
            object.readStrided(EVERY_ROW, columns);
            cluster.flipByte("scrubbed", 1, inSlice);
            // Found intact a moment ago and not written since: the node serves the block without hashing it again, rot and all.
            object.readStrided(EVERY_ROW, columns);
            assertThat(columns.get(ValueLayout.JAVA_BYTE, row * 64 + 2))
                    .isEqualTo((byte) ~data.get(ValueLayout.JAVA_BYTE, TestCluster.SLICE + inSlice));

            StoreException refused = refusedOnceScrubbed(object, EVERY_ROW, columns);
            assertThat(refused.code()).isEqualTo(StoreException.Code.CORRUPT);
            assertThat(refused).hasMessageContaining("slice 1");
        }
    }

    /** What a read of {@code rows} fails with once the scrubber has flagged a block it returns, read every 100 ms until then. */
    private static StoreException refusedOnceScrubbed(ObjectReader object, Stride rows, MemorySegment into) throws Exception {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (true) {
            try {
                object.readStrided(rows, into);
            } catch (StoreException e) {
                return e;
            }
            assertThat(Instant.now()).as("the scrubber to find the bad block").isBefore(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aSliceTheScrubberFlagsIsTrustedInNoBlockAfterTheBadOne() throws Exception {
        start(64_000_000);
        StoreClient client = cluster.client();
        client.put("twice-rotten", Bytes.random(arena, SIZE, 6), PutOptions.defaults().withReplicas(1));
        MemorySegment columns = arena.allocate(EVERY_ROW.bytes());
        // The rows of block 12 of slice 1 alone; the scrubber meets the bad block 1 of that slice first.
        Stride rowsOfALaterBlock = new Stride(TestCluster.SLICE + 12L * BLOCK + 128, 64, 4096, BLOCK / 4096);
        try (ObjectReader object = client.open("twice-rotten")) {
            object.readStrided(EVERY_ROW, columns);
            cluster.flipByte("twice-rotten", 1, BLOCK + 130);
            cluster.flipByte("twice-rotten", 1, 12L * BLOCK + 130);
            refusedOnceScrubbed(object, EVERY_ROW, columns);
            assertThatThrownBy(() -> object.readStrided(rowsOfALaterBlock, columns))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT));
        }
    }

    @Test
    void aReplicaCheckHashesEveryBlockWhateverAReadFoundBefore() throws Exception {
        start(0);
        StoreClient client = cluster.client();
        client.put("checked", Bytes.random(arena, SIZE, 4), PutOptions.defaults().withReplicas(1));
        MemorySegment columns = arena.allocate(EVERY_ROW.bytes());
        try (ObjectReader object = client.open("checked")) {
            object.readStrided(EVERY_ROW, columns);
            cluster.flipByte("checked", 2, 5);
            assertThat(object.checkReplicas()).filteredOn(v -> v.slice() == 2).singleElement()
                    .satisfies(v -> assertThat(v.state()).isEqualTo(ReplicaVerdict.State.CORRUPT));
        }
    }

    @Test
    void aNodeThatTrustsNothingRefusesABlockFlippedRightAfterItsCheck() throws Exception {
        cluster = new TestCluster(tmp, 1, TestCluster.config(), options -> options.withCheckTrust(Duration.ZERO));
        StoreClient client = cluster.client();
        client.put("untrusted", Bytes.random(arena, SIZE, 5), PutOptions.defaults().withReplicas(1));
        MemorySegment columns = arena.allocate(EVERY_ROW.bytes());
        try (ObjectReader object = client.open("untrusted")) {
            object.readStrided(EVERY_ROW, columns);
            cluster.flipByte("untrusted", 0, 9);
            assertThatThrownBy(() -> object.readStrided(EVERY_ROW, columns))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT));
        }
    }
}

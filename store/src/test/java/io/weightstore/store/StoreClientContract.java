package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.LockState;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.api.Stride;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ArrivedCrc;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.Read;
import io.weightstore.store.client.StoreClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every way of reaching the store must do the same: the embedded store, a cluster on loopback
 * over sockets, and a cluster over the same-host path each run these through a small subclass.
 */
abstract class StoreClientContract {
    static final long SLICE = TestCluster.SLICE;

    @TempDir
    Path tmp;

    final Arena arena = Arena.ofShared();

    /** The store under test, opened once per test. */
    abstract StoreClient store();

    /** A second client of the same store, as another process would be; the embedded store has only one. */
    abstract StoreClient otherClient() throws StoreException;

    PutOptions put() {
        return PutOptions.defaults().withSliceSize(SLICE);
    }

    @AfterEach
    void freeMemory() {
        arena.close();
    }

    MemorySegment readWhole(String key) throws IOException {
        return Bytes.readWhole(store(), key, arena);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4095, SLICE - 1, SLICE, SLICE + 1, 3 * SLICE + SLICE / 2})
    void putThenReadGivesIdenticalBytes(long size) throws IOException {
        MemorySegment data = Bytes.random(arena, size, size);
        ObjectMeta info = store().put("objects/" + size, data, put());
        assertThat(info.size()).isEqualTo(size);
        assertThat(info.slices()).hasSize((int) Math.ceilDiv(size, SLICE));
        assertThat(Bytes.equal(readWhole("objects/" + size), data)).isTrue();
        assertThat(store().stat("objects/" + size).size()).isEqualTo(size);
    }

    @Test
    void putFromFileAndFromStreamStoreTheSameBytesAndReportProgressAsDeltas() throws IOException {
        MemorySegment data = Bytes.random(arena, 2 * SLICE + 123, 7);
        byte[] bytes = data.toArray(ValueLayout.JAVA_BYTE);
        Path file = Files.write(tmp.resolve("source.bin"), bytes);
        AtomicLong fromFile = new AtomicLong();
        AtomicLong fromStream = new AtomicLong();
        store().put("from/file", file, put(), fromFile::addAndGet);
        store().put("from/stream", new ByteArrayInputStream(bytes), bytes.length, put(), fromStream::addAndGet);
        assertThat(fromFile.get()).isEqualTo(bytes.length);
        assertThat(fromStream.get()).isEqualTo(bytes.length);
        for (String key : List.of("from/file", "from/stream")) {
            assertThat(readWhole(key).toArray(ValueLayout.JAVA_BYTE)).as(key).isEqualTo(bytes);
        }
    }

    @Test
    void fileShorterThanDeclaredIsRefusedAndLeavesNothing() throws IOException {
        Path file = Files.write(tmp.resolve("short.bin"), new byte[(int) SLICE + 10]);
        try (FileChannel channel = FileChannel.open(file)) {
            assertThatThrownBy(() -> store().put("short-file", channel, 2 * SLICE, put(), Progress.NONE))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("ended at byte " + (SLICE + 10) + ", expected " + 2 * SLICE);
        }
        assertCode(() -> store().stat("short-file"), StoreException.Code.NOT_FOUND);
        assertThat(store().status().pendingPuts()).isZero();
    }

    @Test
    void streamShorterThanDeclaredIsRefusedAndLeavesNothing() throws IOException {
        assertThatThrownBy(() -> store().put("short", new ByteArrayInputStream(new byte[10]), 20, put(), Progress.NONE))
                .isInstanceOf(StoreException.class).hasMessageContaining("ended at byte 10, expected 20");
        assertCode(() -> store().stat("short"), StoreException.Code.NOT_FOUND);
        assertThat(store().status().pendingPuts()).isZero();
    }

    @Test
    void readIntoConfinedMemoryWorksFromItsOwnerThread() throws IOException {
        MemorySegment data = Bytes.random(arena, 4 * SLICE, 4);
        store().put("confined", data, put());
        try (Arena confined = Arena.ofConfined(); ObjectReader object = store().open("confined")) {
            MemorySegment back = confined.allocate(data.byteSize());
            object.read(new Range(0, data.byteSize()), back);
            assertThat(Bytes.equal(back, data)).isTrue();
        }
    }

    @Test
    void scatteredRangesArePackedInOrder() throws IOException {
        MemorySegment data = Bytes.random(arena, 3 * SLICE, 3);
        store().put("scatter", data, put());
        List<Range> ranges = List.of(new Range(SLICE - 10, 20), new Range(5, 3), new Range(2 * SLICE, SLICE),
                new Range(100, 0), new Range(SLICE / 2, SLICE + 17));
        long total = ranges.stream().mapToLong(Range::length).sum();
        MemorySegment back = arena.allocate(total);
        try (ObjectReader object = store().open("scatter")) {
            object.read(ranges, back);
        }
        long at = 0;
        for (Range range : ranges) {
            assertThat(Bytes.equal(back.asSlice(at, range.length()), data.asSlice(range.offset(), range.length())))
                    .as("range %s", range).isTrue();
            at += range.length();
        }
    }

    // A row-major 96 x 40960 byte matrix spans several slices, and some rows straddle slice boundaries.
    private static final long MATRIX_ROW_BYTES = 40960;
    private static final int MATRIX_ROWS = 96;
    private static final Stride MATRIX_COLUMNS = new Stride(10240, 8192, MATRIX_ROW_BYTES, MATRIX_ROWS);

    private MemorySegment putMatrix(String key, long seed) throws IOException {
        MemorySegment matrix = Bytes.random(arena, MATRIX_ROW_BYTES * MATRIX_ROWS, seed);
        store().put(key, matrix, put());
        return matrix;
    }

    @Test
    void stridedReadTakesOneColumnBlockPerRowAcrossSlices() throws IOException {
        MemorySegment matrix = putMatrix("matrix", 11);
        long width = MATRIX_COLUMNS.blockLength();
        MemorySegment shard = arena.allocate(MATRIX_COLUMNS.bytes());
        try (ObjectReader object = store().open("matrix")) {
            object.readStrided(MATRIX_COLUMNS, shard);
        }
        for (int row = 0; row < MATRIX_ROWS; row++) {
            assertThat(Bytes.equal(shard.asSlice(row * width, width), matrix.asSlice(MATRIX_COLUMNS.rowOffset(row), width)))
                    .as("row %d", row).isTrue();
        }
    }

    @Test
    void aStridedReadGivesTheCrcOfTheRowsItDeliveredAsTheyLanded() throws IOException {
        // Rows that straddle slice boundaries are read as plain ranges: their CRCs join the strided pieces' in order.
        putMatrix("crc-matrix", 12);
        MemorySegment shard = arena.allocate(MATRIX_COLUMNS.bytes());
        ArrivedCrc arrived = new ArrivedCrc();
        try (ObjectReader object = store().open("crc-matrix")) {
            object.readStrided(MATRIX_COLUMNS, shard, arrived);
        }
        assertThat(arrived.crc32c(shard.byteSize())).isEqualTo(Checksums.crc32c(shard));
        assertThatThrownBy(() -> arrived.crc32c(shard.byteSize() + 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CRCs arrived for " + shard.byteSize() + " bytes");
    }

    @Test
    void aStridedReadOfThousandsOfNarrowRowsDeliversEveryRow() throws IOException {
        // 6000 rows, all in the first slice.
        assertStridedReadDelivers("narrow-rows", new Stride(40, 16, 128, 6000), 128 * 6000);
    }

    @Test
    void aStridedReadOfMoreRowsThanAreHashedAtOnceGivesTheCrcOfThemAll() throws IOException {
        // 585 KiB of rows of 100 bytes, all in the first slice: a same-host client hashes them in pieces of 256 KiB.
        assertStridedReadDelivers("many-rows", new Stride(20, 100, 128, 6000), 128 * 6000);
    }

    @Test
    void aStridedReadOfWideRowsDeliversEveryRow() throws IOException {
        // Rows of 300 KiB, two to a slice, and a third that straddles the slice boundary.
        assertStridedReadDelivers("wide-rows", new Stride(0, 300 << 10, 400 << 10, 3), 2 * SLICE);
    }

    private void assertStridedReadDelivers(String key, Stride stride, long objectBytes) throws IOException {
        MemorySegment object = Bytes.random(arena, objectBytes, 14);
        store().put(key, object, put());
        MemorySegment shard = arena.allocate(stride.bytes());
        ArrivedCrc arrived = new ArrivedCrc();
        try (ObjectReader reader = store().open(key)) {
            reader.readStrided(stride, shard, arrived);
        }
        for (int row = 0; row < stride.count(); row++) {
            assertThat(Bytes.equal(shard.asSlice(row * stride.blockLength(), stride.blockLength()),
                    object.asSlice(stride.rowOffset(row), stride.blockLength()))).as("row %d", row).isTrue();
        }
        assertThat(arrived.crc32c(shard.byteSize())).isEqualTo(Checksums.crc32c(shard));
    }

    @Test
    void oneBatchMixesRangesAndStridedReadsOfSeveralObjects() throws IOException {
        MemorySegment a = Bytes.random(arena, 3 * SLICE, 21);
        MemorySegment b = Bytes.random(arena, 2 * SLICE + 5, 22);
        store().put("batch/a", a, put());
        store().put("batch/b", b, put());
        MemorySegment ranges = arena.allocate(300);
        MemorySegment column = arena.allocate(16L * 100);
        MemorySegment whole = arena.allocate(b.byteSize());
        try (ObjectReader ra = store().open("batch/a"); ObjectReader rb = store().open("batch/b")) {
            store().read(List.of(
                    new Read.Ranges(ra, List.of(new Range(SLICE - 100, 200), new Range(7, 100)), ranges),
                    new Read.Strided(ra, new Stride(40, 16, 30_000, 100), column),
                    new Read.Ranges(rb, List.of(new Range(0, b.byteSize())), whole)));
        }
        assertThat(Bytes.equal(ranges.asSlice(0, 200), a.asSlice(SLICE - 100, 200))).isTrue();
        assertThat(Bytes.equal(ranges.asSlice(200, 100), a.asSlice(7, 100))).isTrue();
        for (int row = 0; row < 100; row++) {
            assertThat(Bytes.equal(column.asSlice(16L * row, 16), a.asSlice(40 + 30_000L * row, 16))).as("row %d", row).isTrue();
        }
        assertThat(Bytes.equal(whole, b)).isTrue();
        assertCode(() -> store().open("batch/missing"), StoreException.Code.NOT_FOUND);
    }

    @Test
    void existingKeyIsRefusedUnlessReplaced() throws IOException {
        store().put("dup", Bytes.random(arena, 100, 1), put());
        assertCode(() -> store().put("dup", Bytes.random(arena, 100, 2), put()), StoreException.Code.ALREADY_EXISTS);
        MemorySegment replacement = Bytes.random(arena, 3 * SLICE, 3);
        store().put("dup", replacement, put().withReplace(true));
        assertThat(Bytes.equal(readWhole("dup"), replacement)).isTrue();
    }

    @Test
    void objectBeingReadIsNotReplacedFromUnderItsReader() throws IOException {
        MemorySegment original = Bytes.random(arena, 2 * SLICE, 31);
        store().put("in-use", original, put());
        try (ObjectReader reader = store().open("in-use")) {
            assertCode(() -> store().put("in-use", Bytes.random(arena, 10, 32), put().withReplace(true)),
                    StoreException.Code.FAILED_PRECONDITION);
            MemorySegment back = arena.allocate(original.byteSize());
            reader.read(new Range(0, original.byteSize()), back);
            assertThat(Bytes.equal(back, original)).isTrue();
        }
        store().put("in-use", Bytes.random(arena, 10, 32), put().withReplace(true));
    }

    @Test
    void listReturnsSealedObjectsUnderAPrefixInKeyOrder() throws IOException {
        for (String key : List.of("a/2", "a/1", "b/1", "a/10")) {
            store().put(key, Bytes.random(arena, 10, key.hashCode()), put());
        }
        assertThat(store().list("a/")).extracting(ObjectMeta::key).containsExactly("a/1", "a/10", "a/2");
        assertThat(store().list("c/")).isEmpty();
    }

    @Test
    void removedObjectIsGoneAndItsSpaceReused() throws IOException {
        long before = store().status().used();
        store().put("gone", Bytes.random(arena, 2 * SLICE, 5), put());
        long with = store().status().used();
        assertThat(with).isGreaterThan(before);
        readWhole("gone");
        store().remove("gone", false);
        assertCode(() -> store().stat("gone"), StoreException.Code.NOT_FOUND);
        // A secure master holds the room from other writers while the remover's write grants for it live; not from the remover.
        store().put("in-its-place", Bytes.random(arena, 2 * SLICE, 6), put());
        assertThat(store().status().used()).isEqualTo(with);
    }

    @Test
    void openReaderBlocksRemovalUntilClosedOrForced() throws IOException {
        store().put("leased", Bytes.random(arena, 100, 6), put());
        try (ObjectReader reader = store().open("leased")) {
            assertCode(() -> otherClient().remove("leased", false), StoreException.Code.FAILED_PRECONDITION);
        }
        otherClient().remove("leased", false);

        store().put("leased2", Bytes.random(arena, 100, 7), put());
        try (ObjectReader reader = store().open("leased2")) {
            otherClient().remove("leased2", true);
            assertCode(() -> store().stat("leased2"), StoreException.Code.NOT_FOUND);
        }
    }

    @Test
    void twoReadersOfOneObjectNeverEndEachOthersLease() throws IOException {
        store().put("shared", Bytes.random(arena, 100, 8), put());
        ObjectReader first = store().open("shared");
        try (ObjectReader second = store().open("shared")) {
            first.close();
            assertCode(() -> otherClient().remove("shared", false), StoreException.Code.FAILED_PRECONDITION);
            MemorySegment back = arena.allocate(100);
            second.read(new Range(0, 100), back);
        }
        otherClient().remove("shared", false);
    }

    @Test
    void badKeysAndRangesAreRefusedWithTheReason() throws IOException {
        assertCode(() -> store().put("k".repeat(4097), Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().put("", Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().put("bell\u0007", Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        store().put("small", Bytes.random(arena, 100, 1), put());
        try (ObjectReader small = store().open("small")) {
            assertThatThrownBy(() -> small.read(new Range(90, 20), arena.allocate(20))).hasMessageContaining("outside small of 100 bytes");
            assertThatThrownBy(() -> small.read(new Range(0, 50), arena.allocate(10))).hasMessageContaining("too small");
            assertCode(() -> small.readStrided(new Stride(51, 10, 20, 3), arena.allocate(30)), StoreException.Code.INVALID_ARGUMENT);
        }
        assertThatThrownBy(() -> new Stride(0, 10, 5, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blockLength=10 stride=5");
        assertCode(() -> store().open("missing"), StoreException.Code.NOT_FOUND);
    }

    @Test
    void aRangeWhoseEndOverflowsIsRefusedRatherThanReadAsNothing() throws IOException {
        store().put("tiny", Bytes.random(arena, 100, 3), put());
        try (ObjectReader tiny = store().open("tiny")) {
            assertThatThrownBy(() -> tiny.read(new Range(Long.MAX_VALUE - 10, 20), arena.allocate(20)))
                    .hasMessageContaining("outside tiny of 100 bytes");
        }
    }

    @Test
    void aStrideWhoseEndOverflowsIsRefusedRatherThanReadAsNothing() throws IOException {
        store().put("rows", Bytes.random(arena, 100, 4), put());
        try (ObjectReader rows = store().open("rows")) {
            // One row whose end passes Long.MAX_VALUE by less than the stride.
            assertThatThrownBy(() -> rows.readStrided(new Stride(Long.MAX_VALUE - 2, 5, 10, 1), arena.allocate(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overflows");
        }
    }

    @Test
    void closedReaderFailsLoudly() throws IOException {
        store().put("closed", Bytes.random(arena, 100, 9), put());
        ObjectReader reader = store().open("closed");
        reader.close();
        assertThatThrownBy(() -> reader.read(new Range(0, 10), arena.allocate(10))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void lockIsExclusiveUntilReleasedOrExpired() throws IOException {
        Duration minute = Duration.ofMinutes(1);
        assertThat(store().tryLock("catalog/x", "alice", minute).held()).isTrue();
        LockState bob = store().tryLock("catalog/x", "bob", minute);
        assertThat(bob.held()).isFalse();
        assertThat(bob.owner()).isEqualTo("alice");
        assertThat(store().renewLock("catalog/x", "alice", minute).held()).isTrue();
        assertCode(() -> store().renewLock("catalog/x", "bob", minute), StoreException.Code.FAILED_PRECONDITION);
        store().releaseLock("catalog/x", "alice");
        assertThat(store().tryLock("catalog/x", "bob", Duration.ofMillis(1)).held()).isTrue();
    }

    @Test
    void statusReportsNodesAndObjects() throws IOException {
        store().put("counted", Bytes.random(arena, 10, 1), put());
        StoreStatus status = store().status();
        assertThat(status.objects()).isGreaterThanOrEqualTo(1);
        assertThat(status.nodes()).isNotEmpty().allSatisfy(n -> assertThat(n.up()).isTrue());
        assertThat(status.capacity()).isPositive();
    }

    /** Runs {@code action} and asserts it fails with a store error of {@code code}. */
    static void assertCode(ThrowingAction action, StoreException.Code code) {
        assertThatThrownBy(action::run).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(code));
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }
}

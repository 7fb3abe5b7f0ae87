package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every way of reaching the store must do the same: the embedded store and a cluster on
 * loopback each run these through a small subclass.
 */
abstract class StoreClientContract {
    static final long SLICE = TestCluster.SLICE;

    @TempDir
    Path tmp;

    final Arena arena = Arena.ofShared();

    /** The store under test, opened once per test. */
    abstract StoreClient store();

    PutOptions put() {
        return PutOptions.defaults().withSliceSize(SLICE);
    }

    @AfterEach
    void freeMemory() {
        arena.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4095, SLICE - 1, SLICE, SLICE + 1, 3 * SLICE + SLICE / 2})
    void putThenReadGivesIdenticalBytes(long size) throws IOException {
        MemorySegment data = Bytes.random(arena, size, size);
        ObjectInfo info = store().put("objects/" + size, data, put());
        assertThat(info.size()).isEqualTo(size);
        assertThat(info.slices()).hasSize((int) Math.ceilDiv(size, SLICE));

        MemorySegment back = arena.allocate(Math.max(1, size)).asSlice(0, size);
        store().readInto("objects/" + size, List.of(new Range(0, size)), back);
        assertThat(Bytes.equal(back, data)).isTrue();
        assertThat(store().stat("objects/" + size).size()).isEqualTo(size);
    }

    @Test
    void putFromFileAndFromStreamStoreTheSameBytes() throws IOException {
        MemorySegment data = Bytes.random(arena, 2 * SLICE + 123, 7);
        byte[] bytes = data.toArray(ValueLayout.JAVA_BYTE);
        Path file = Files.write(tmp.resolve("source.bin"), bytes);
        store().put("from/file", file, put());
        store().put("from/stream", new ByteArrayInputStream(bytes), bytes.length, put());
        for (String key : List.of("from/file", "from/stream")) {
            MemorySegment back = arena.allocate(bytes.length);
            store().readInto(key, List.of(new Range(0, bytes.length)), back);
            assertThat(back.toArray(ValueLayout.JAVA_BYTE)).as(key).isEqualTo(bytes);
        }
    }

    @Test
    void streamShorterThanDeclaredIsRefusedAndLeavesNothing() {
        assertThatThrownBy(() -> store().put("short", new ByteArrayInputStream(new byte[10]), 20, put()))
                .isInstanceOf(StoreException.class).hasMessageContaining("ended at byte 10, expected 20");
        assertCode(() -> store().stat("short"), StoreException.Code.NOT_FOUND);
    }

    @Test
    void readIntoConfinedMemoryWorksFromItsOwnerThread() throws IOException {
        MemorySegment data = Bytes.random(arena, 4 * SLICE, 4);
        store().put("confined", data, put());
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment back = confined.allocate(data.byteSize());
            store().readInto("confined", List.of(new Range(0, data.byteSize())), back);
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
        store().readInto("scatter", ranges, back);
        long at = 0;
        for (Range range : ranges) {
            assertThat(Bytes.equal(back.asSlice(at, range.length()), data.asSlice(range.offset(), range.length())))
                    .as("range %s", range).isTrue();
            at += range.length();
        }
    }

    @Test
    void stridedReadTakesOneColumnBlockPerRowAcrossSlices() throws IOException {
        // A row-major 96 x 40960 byte matrix spans several slices, and some rows straddle slice boundaries.
        long rowBytes = 40960;
        int rows = 96;
        MemorySegment matrix = Bytes.random(arena, rowBytes * rows, 11);
        store().put("matrix", matrix, put());
        long column = 10240;
        long width = 8192;
        MemorySegment shard = arena.allocate(width * rows);
        store().readStrided("matrix", column, width, rowBytes, rows, shard);
        for (int row = 0; row < rows; row++) {
            assertThat(Bytes.equal(shard.asSlice(row * width, width), matrix.asSlice(row * rowBytes + column, width)))
                    .as("row %d", row).isTrue();
        }
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
        store().read(List.of(
                new Read.Ranges("batch/a", List.of(new Range(SLICE - 100, 200), new Range(7, 100)), ranges),
                new Read.Strided("batch/a", 40, 16, 30_000, 100, column),
                new Read.Ranges("batch/b", List.of(new Range(0, b.byteSize())), whole)));
        assertThat(Bytes.equal(ranges.asSlice(0, 200), a.asSlice(SLICE - 100, 200))).isTrue();
        assertThat(Bytes.equal(ranges.asSlice(200, 100), a.asSlice(7, 100))).isTrue();
        for (int row = 0; row < 100; row++) {
            assertThat(Bytes.equal(column.asSlice(16L * row, 16), a.asSlice(40 + 30_000L * row, 16))).as("row %d", row).isTrue();
        }
        assertThat(Bytes.equal(whole, b)).isTrue();
        assertCode(() -> store().read(List.of(new Read.Ranges("batch/b", List.of(new Range(0, 10)), arena.allocate(10)),
                new Read.Ranges("batch/missing", List.of(new Range(0, 1)), arena.allocate(1)))), StoreException.Code.NOT_FOUND);
    }

    @Test
    void existingKeyIsRefusedUnlessReplaced() throws IOException {
        store().put("dup", Bytes.random(arena, 100, 1), put());
        assertCode(() -> store().put("dup", Bytes.random(arena, 100, 2), put()), StoreException.Code.ALREADY_EXISTS);
        MemorySegment replacement = Bytes.random(arena, 3 * SLICE, 3);
        store().put("dup", replacement, put().withReplace(true));
        MemorySegment back = arena.allocate(replacement.byteSize());
        store().readInto("dup", List.of(new Range(0, replacement.byteSize())), back);
        assertThat(Bytes.equal(back, replacement)).isTrue();
    }

    @Test
    void listReturnsSealedObjectsUnderAPrefixInKeyOrder() throws IOException {
        for (String key : List.of("a/2", "a/1", "b/1", "a/10")) {
            store().put(key, Bytes.random(arena, 10, key.hashCode()), put());
        }
        assertThat(store().list("a/")).extracting(ObjectInfo::key).containsExactly("a/1", "a/10", "a/2");
        assertThat(store().list("c/")).isEmpty();
    }

    @Test
    void removedObjectIsGoneAndItsSpaceReused() throws IOException {
        long before = store().status().used();
        store().put("gone", Bytes.random(arena, 2 * SLICE, 5), put());
        assertThat(store().status().used()).isGreaterThan(before);
        store().releaseLeases();
        store().remove("gone", false);
        assertCode(() -> store().stat("gone"), StoreException.Code.NOT_FOUND);
        assertThat(store().status().used()).isEqualTo(before);
    }

    @Test
    void badKeysAndRangesAreRefusedWithTheReason() throws IOException {
        assertCode(() -> store().put("k".repeat(4097), Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().put("", Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().put("bell\u0007", Bytes.random(arena, 1, 1), put()), StoreException.Code.INVALID_ARGUMENT);
        store().put("small", Bytes.random(arena, 100, 1), put());
        assertThatThrownBy(() -> store().readInto("small", List.of(new Range(90, 20)), arena.allocate(20)))
                .hasMessageContaining("outside small of 100 bytes");
        assertThatThrownBy(() -> store().readInto("small", List.of(new Range(0, 50)), arena.allocate(10)))
                .hasMessageContaining("too small");
        assertCode(() -> store().readStrided("small", 0, 10, 5, 2, arena.allocate(20)), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().readStrided("small", 51, 10, 20, 3, arena.allocate(30)), StoreException.Code.INVALID_ARGUMENT);
        assertCode(() -> store().readInto("missing", List.of(new Range(0, 1)), arena.allocate(1)), StoreException.Code.NOT_FOUND);
    }

    @Test
    void lockIsExclusiveUntilReleasedOrExpired() throws IOException {
        assertThat(store().tryLock("catalog/x", "alice", 60_000).held()).isTrue();
        StoreClient.LockState bob = store().tryLock("catalog/x", "bob", 60_000);
        assertThat(bob.held()).isFalse();
        assertThat(bob.owner()).isEqualTo("alice");
        assertThat(store().renewLock("catalog/x", "alice", 60_000).held()).isTrue();
        assertCode(() -> store().renewLock("catalog/x", "bob", 60_000), StoreException.Code.FAILED_PRECONDITION);
        store().releaseLock("catalog/x", "alice");
        assertThat(store().tryLock("catalog/x", "bob", 1).held()).isTrue();
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

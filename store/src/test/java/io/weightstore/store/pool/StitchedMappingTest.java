package io.weightstore.store.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.HugeTmpfs;
import io.weightstore.store.Smaps;
import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pieces that are one run of one file are mapped by the JDK, others stitched with mmap: a reader
 * must not be able to tell the two apart, in bytes, in lifetime, or in what they refuse.
 */
class StitchedMappingTest {
    @TempDir
    Path tmp;

    private static void fill(PoolFile pool, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            pool.data().set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 7));
        }
    }

    private static byte[] expected(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed + i * 7);
        }
        return bytes;
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    @Test
    void aRunOfOneFileAndPiecesToStitchReadTheirBytesInOrder() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20)) {
            fill(first, 8192, 8192 + 5000, 1);
            fill(second, 4096, 3000, 100);
            StitchedMapping.Piece head = new StitchedMapping.Piece(first.path(), first.uuid(), 8192, 8192);
            StitchedMapping.Piece tail = new StitchedMapping.Piece(first.path(), first.uuid(), 16384, 5000);
            StitchedMapping.Piece other = new StitchedMapping.Piece(second.path(), second.uuid(), 4096, 3000);
            byte[] run = expected(8192 + 5000, 1);
            try (Arena arena = Arena.ofConfined()) {
                assertThat(StitchedMapping.map(List.of(head, tail), arena).toArray(ValueLayout.JAVA_BYTE)).as("one run of one file")
                        .isEqualTo(run);
                assertThat(StitchedMapping.map(List.of(head, other), arena).toArray(ValueLayout.JAVA_BYTE)).as("two pools")
                        .isEqualTo(concat(expected(8192, 1), expected(3000, 100)));
                StitchedMapping.Piece lead = new StitchedMapping.Piece(first.path(), first.uuid(), 16384, 4096);
                assertThat(StitchedMapping.map(List.of(lead, head), arena).toArray(ValueLayout.JAVA_BYTE))
                        .as("one file, out of order").isEqualTo(concat(Arrays.copyOfRange(run, 8192, 12288), Arrays.copyOf(run, 8192)));
            }
            assertThat(StitchedMapping.mappable(List.of(head, tail))).isTrue();
            assertThat(StitchedMapping.mappable(List.of(head, other))).isTrue();
        }
    }

    @Test
    void eitherWayTheSegmentIsReadOnlyAndEndsWithItsArena() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20)) {
            List<StitchedMapping.Piece> run = List.of(new StitchedMapping.Piece(first.path(), first.uuid(), 0, 4096),
                    new StitchedMapping.Piece(first.path(), first.uuid(), 4096, 4096));
            List<StitchedMapping.Piece> stitched = List.of(run.getFirst(), new StitchedMapping.Piece(second.path(), second.uuid(), 0, 4096));
            for (List<StitchedMapping.Piece> pieces : List.of(run, stitched)) {
                Arena arena = Arena.ofShared();
                MemorySegment mapped = StitchedMapping.map(pieces, arena);
                assertThat(mapped.byteSize()).isEqualTo(8192);
                assertThat(mapped.isReadOnly()).isTrue();
                assertThatThrownBy(() -> mapped.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)).isInstanceOf(IllegalArgumentException.class);
                arena.close();
                assertThatThrownBy(() -> mapped.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            }
        }
    }

    @Test
    void eitherWayAClosedArenaIsRefusedAndLeavesNoMappingBehind() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20)) {
            List<StitchedMapping.Piece> run = List.of(new StitchedMapping.Piece(first.path(), first.uuid(), 0, 4096));
            List<StitchedMapping.Piece> stitched = List.of(run.getFirst(), new StitchedMapping.Piece(second.path(), second.uuid(), 0, 4096));
            Arena closed = Arena.ofShared();
            closed.close();
            long before = mappingsOf(first.path(), second.path());
            for (List<StitchedMapping.Piece> pieces : List.of(run, stitched)) {
                assertThatThrownBy(() -> StitchedMapping.map(pieces, closed)).isInstanceOf(IllegalStateException.class);
            }
            assertThat(mappingsOf(first.path(), second.path())).as("the pools' own mappings only").isEqualTo(before);
        }
    }

    /** How many of this process's mappings map one of {@code files}. */
    private static long mappingsOf(Path... files) throws Exception {
        List<String> names = Arrays.stream(files).map(f -> " " + f.toAbsolutePath()).toList();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> names.stream().anyMatch(line::endsWith)).count();
    }

    @Test
    void eitherWayAFileThatIsNotThePoolNamedIsRefused() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20); Arena arena = Arena.ofConfined()) {
            UUID stranger = UUID.randomUUID();
            StitchedMapping.Piece wrong = new StitchedMapping.Piece(first.path(), stranger, 0, 4096);
            StitchedMapping.Piece right = new StitchedMapping.Piece(second.path(), second.uuid(), 0, 4096);
            assertThatThrownBy(() -> StitchedMapping.map(List.of(wrong), arena)).as("one run").isInstanceOf(StoreException.class)
                    .hasMessageContaining("is pool " + first.uuid() + ", expected " + stranger);
            assertThatThrownBy(() -> StitchedMapping.map(List.of(right, wrong), arena)).as("stitched").isInstanceOf(StoreException.class)
                    .hasMessageContaining("is pool " + first.uuid() + ", expected " + stranger);
        }
    }

    @Test
    void aMissingPoolFileIsAnErrorThatNamesIt() throws Exception {
        Path gone = tmp.resolve("gone");
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> StitchedMapping.map(List.of(new StitchedMapping.Piece(gone, UUID.randomUUID(), 0, 4096)), arena))
                    .isInstanceOf(StoreException.class).hasMessageContaining("cannot map 4096 bytes of " + gone)
                    .hasMessageContaining("NoSuchFileException");
        }
    }

    @Test
    void aStitchedRangeStartsWhereItsFirstPiecesFileOffsetFallsInA2MiBPage() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20); Arena arena = Arena.ofConfined()) {
            for (long offset : new long[] {0, 8192, 12288}) {
                MemorySegment mapped = StitchedMapping.map(List.of(new StitchedMapping.Piece(first.path(), first.uuid(), offset, 8192),
                        new StitchedMapping.Piece(second.path(), second.uuid(), 0, 4096)), arena);
                assertThat(Math.floorMod(mapped.address() - PoolFile.DATA_START - offset, PoolFile.HUGE_PAGE)).as("data offset %d", offset)
                        .isZero();
            }
        }
    }

    @Test
    void noPiecesMapToAnEmptySegment() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(StitchedMapping.map(List.of(), arena).byteSize()).isZero();
        }
    }

    @Test
    void piecesOnTheHugePagesOfAPoolInHugePagesAreMappedByWhole2MiBEntries() throws Exception {
        try (HugeTmpfs huge = HugeTmpfs.mount(tmp.resolve("huge"), 32); PoolFile first = PoolFile.openOrCreate(huge.dir().resolve("pool-a"), 8 << 20);
                PoolFile second = PoolFile.openOrCreate(huge.dir().resolve("pool-b"), 8 << 20); Arena arena = Arena.ofConfined()) {
            int length = 4 << 20;
            fill(first, 0, length, 3);
            fill(second, 0, length, 5);
            // The kernel's own placement of one run is the reference: without huge pages there is nothing to map by them.
            MemorySegment run = StitchedMapping.map(List.of(new StitchedMapping.Piece(first.path(), first.uuid(), 0, length)), arena);
            assertThat(run.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected(length, 3));
            assumeTrue(Smaps.kib(run, "ShmemPmdMapped", "FilePmdMapped") == 2048, "the kernel gave this tmpfs no huge page to map");
            // Data offset 0 is file offset 4 KiB: each piece holds one whole huge page of its file, at file offset 2 MiB.
            MemorySegment mapped = StitchedMapping.map(List.of(new StitchedMapping.Piece(first.path(), first.uuid(), 0, length),
                    new StitchedMapping.Piece(second.path(), second.uuid(), 0, length)), arena);
            assertThat(mapped.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(concat(expected(length, 3), expected(length, 5)));
            assertThat(Smaps.kib(mapped, "ShmemPmdMapped", "FilePmdMapped")).as("kB mapped by 2 MiB entries").isEqualTo(2 * 2048);
        }
    }
}

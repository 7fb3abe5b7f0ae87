package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.HugeTmpfs;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes take the mapping into a pool on a tmpfs in huge pages and {@code pwrite} into any other:
 * bytes land alike either way. The disk is the temporary directory, the tmpfs {@code /dev/shm}, and
 * the tmpfs in huge pages one the test mounts (as root).
 */
class MappedNodeAccessTest {
    private static final long CAPACITY = 4 << 20;
    private static final Path TMPFS = Path.of("/dev/shm");

    @TempDir
    Path disk;

    private Path tmpfsDir;
    private HugeTmpfs huge;

    @AfterEach
    void unmountHugeTmpfs() throws Exception {
        if (huge != null) {
            huge.close();
        }
    }

    @AfterEach
    void removeTmpfsDir() throws IOException {
        if (tmpfsDir != null) {
            try (Stream<Path> files = Files.walk(tmpfsDir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private Path dir(String kind) throws Exception {
        if (kind.equals("disk")) {
            assumeTrue(!Files.getFileStore(disk).type().equals("tmpfs"), "the temporary directory is on a disk");
            return disk;
        }
        if (kind.equals("huge tmpfs")) {
            huge = HugeTmpfs.mount(disk.resolve("huge"), 32);
            assumeTrue(PoolPages.of(huge.dir()).hugePages(), "the kernel gives this tmpfs no huge pages");
            return huge.dir();
        }
        assumeTrue(Files.isDirectory(TMPFS) && Files.getFileStore(TMPFS).type().equals("tmpfs"), "/dev/shm is a tmpfs");
        tmpfsDir = Files.createTempDirectory(TMPFS, "mapped-node-access-");
        return tmpfsDir;
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"disk", "tmpfs", "huge tmpfs"})
    void offHeapBytesLandAtTheirDataOffsetInTheFileAndTheMappingSeesThem(String kind) throws Exception {
        byte[] expected = random((1 << 20) * 3 + 17, 1);
        long offset = 12_345;
        try (PoolFile pool = PoolFile.openOrCreate(dir(kind).resolve("pool"), CAPACITY); Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(expected.length);
            MemorySegment.copy(expected, 0, src, ValueLayout.JAVA_BYTE, 0, expected.length);

            new MappedNodeAccess(pool).write(offset, src, Ticket.none());

            assertThat(pool.data().asSlice(offset, expected.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected);
            assertThat(fileBytes(pool, offset, expected.length)).isEqualTo(expected);
            assertThat(pool.data().get(ValueLayout.JAVA_BYTE, offset - 1)).as("the byte before is untouched").isZero();
            assertThat(pool.data().get(ValueLayout.JAVA_BYTE, offset + expected.length)).as("the byte after").isZero();
        }
    }

    @Test
    void offHeapBytesGoIntoATmpfsInSmallPagesByPwriteNotAFaultPerPage() throws Exception {
        Path dir = dir("tmpfs");
        assumeTrue(PoolPages.of(dir).smallTmpfsPages(), "/dev/shm holds its files in 4 KiB pages");
        try (PoolFile pool = PoolFile.openOrCreate(dir.resolve("pool"), CAPACITY); Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(CAPACITY).fill((byte) 5);
            MappedNodeAccess access = new MappedNodeAccess(pool);

            long faultsBefore = minorFaultsOfThisThread();
            access.write(0, src, Ticket.none());
            long faults = minorFaultsOfThisThread() - faultsBefore;

            // A copy into the mapping faults each of the pool's 1,024 fresh pages in; a pwrite has the kernel fill them.
            assertThat(faults).as("page faults of a 4 MiB write").isLessThan(CAPACITY / 4096 / 4);
            assertThat(pool.data().asSlice(CAPACITY - 4096).toArray(ValueLayout.JAVA_BYTE)).containsOnly(5);
        }
    }

    /** minflt, the tenth field of /proc/thread-self/stat; the second, the name in parentheses, may hold spaces. */
    private static long minorFaultsOfThisThread() throws IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"disk", "tmpfs"})
    void heapBytesLandAsOffHeapBytesDo(String kind) throws Exception {
        byte[] expected = random(4096 + 17, 2);
        try (PoolFile pool = PoolFile.openOrCreate(dir(kind).resolve("pool"), CAPACITY)) {
            new MappedNodeAccess(pool).write(CAPACITY - expected.length, MemorySegment.ofArray(expected), Ticket.none());

            assertThat(fileBytes(pool, CAPACITY - expected.length, expected.length)).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"disk", "tmpfs"})
    void aWritePastThePoolIsRefusedBeforeAnyByteLands(String kind) throws Exception {
        try (PoolFile pool = PoolFile.openOrCreate(dir(kind).resolve("pool"), CAPACITY); Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(8192).fill((byte) 7);
            MappedNodeAccess access = new MappedNodeAccess(pool);

            assertThatThrownBy(() -> access.write(CAPACITY - 4096, src, Ticket.none())).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(pool.data().asSlice(CAPACITY - 4096).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(pool.channel().size()).as("the file did not grow").isEqualTo(PoolFile.DATA_START + CAPACITY);
        }
    }

    @Test
    void anInterruptedWriteOnADiskLeavesTheAccessWritable() throws Exception {
        byte[] expected = random(64 << 10, 3);
        try (PoolFile pool = PoolFile.openOrCreate(dir("disk").resolve("pool"), CAPACITY); Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(expected.length);
            MemorySegment.copy(expected, 0, src, ValueLayout.JAVA_BYTE, 0, expected.length);
            MappedNodeAccess access = new MappedNodeAccess(pool);

            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> access.write(0, src, Ticket.none())).isInstanceOf(ClosedByInterruptException.class);
            } finally {
                Thread.interrupted();
            }
            access.write(0, src, Ticket.none());

            assertThat(fileBytes(pool, 0, expected.length)).isEqualTo(expected);
        }
    }

    @Test
    void aWriteOnADiskIntoAPoolReplacedAtItsPathIsRefused() throws Exception {
        Path path = dir("disk").resolve("pool");
        try (PoolFile pool = PoolFile.openOrCreate(path, CAPACITY); Arena arena = Arena.ofConfined()) {
            MappedNodeAccess access = new MappedNodeAccess(pool);
            PoolFile.openOrCreate(disk.resolve("other"), CAPACITY).close();
            Files.move(disk.resolve("other"), path, StandardCopyOption.REPLACE_EXISTING);

            assertThatThrownBy(() -> access.write(0, arena.allocate(4096).fill((byte) 1), Ticket.none()))
                    .isInstanceOf(StoreException.class).hasMessageContaining("pool file " + path + " is pool")
                    .hasMessageContaining("expected " + pool.uuid());
            try (FileChannel replaced = FileChannel.open(path)) {
                ByteBuffer first = ByteBuffer.allocate(4096);
                replaced.read(first, PoolFile.DATA_START);
                assertThat(first.array()).as("nothing landed in the pool now at that path").containsOnly(0);
            }
        }
    }

    @Test
    void aReadWhoseChecksLeaveAGapIsRefusedBeforeAnyByteLands() throws Exception {
        try (PoolFile pool = PoolFile.openOrCreate(disk.resolve("pool"), CAPACITY); Arena arena = Arena.ofConfined()) {
            MappedNodeAccess access = new MappedNodeAccess(pool);
            int block = 4096;
            access.write(0, MemorySegment.ofArray(random(3 * block, 7)), Ticket.none());
            List<BlockCheck> firstAndLast = List.of(new BlockCheck(0, block, crc32c(pool, 0, block)),
                    new BlockCheck(2 * block, block, crc32c(pool, 2 * block, block)));
            MemorySegment dst = arena.allocate(3 * block).fill((byte) 0x5A);

            assertThatThrownBy(() -> access.read(List.of(new Range(0, 3 * block)), firstAndLast, dst))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("no block checks bytes 4096..8192");
            assertThat(dst.asSlice(block, block).toArray(ValueLayout.JAVA_BYTE)).as("the unchecked block").containsOnly(0x5A);
        }
    }

    private static int crc32c(PoolFile pool, long offset, int length) {
        return Checksums.crc32c(pool.data().asSlice(offset, length));
    }

    private static byte[] fileBytes(PoolFile pool, long offset, int length) throws IOException {
        try (FileChannel file = FileChannel.open(pool.path())) {
            ByteBuffer read = ByteBuffer.allocate(length);
            while (read.hasRemaining()) {
                if (file.read(read, PoolFile.DATA_START + offset + read.position()) < 0) {
                    break;
                }
            }
            return read.array();
        }
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}

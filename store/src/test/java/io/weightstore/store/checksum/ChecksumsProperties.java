package io.weightstore.store.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;

/**
 * The store's CRC32C must give exactly the JDK's values, however the bytes are cut and wherever they
 * live: checksums written by one process are checked by another that may compute them differently.
 */
class ChecksumsProperties {
    /** Long enough for many rounds of the native folding and of its three 8 KiB chains after it, plus a ragged tail. */
    private static final int MAX_LENGTH = 200_000;

    @Example
    void nativeLibraryIsUsedWhereItWasBuilt() {
        boolean built = NativeCrc32c.class.getResource("native/linux-amd64/libweightstore-crc32c.so") != null;
        boolean here = System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64");
        if (built && here) {
            assertThat(Checksums.implementation()).startsWith("native");
            assertThat(Checksums.newCrc32c()).isInstanceOf(NativeCrc32c.class);
        } else {
            assertThat(Checksums.implementation()).startsWith("JDK CRC32C (native library not used: ");
        }
    }

    @Example
    void knownValueOfTheStandardCheckString() {
        assertThat(Checksums.crc32c(MemorySegment.ofArray("123456789".getBytes()))).isEqualTo(0xE3069283);
        assertThat(Checksums.crc32c(MemorySegment.ofArray(new byte[0]))).isZero();
    }

    @Property(tries = 300)
    void wholeBufferMatchesTheJdk(@ForAll("lengths") int length, @ForAll @IntRange(max = 63) int offset, @ForAll long seed) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = random(arena, offset + length, seed).asSlice(offset, length);
            assertThat(Checksums.crc32c(bytes)).isEqualTo(jdk(bytes));
        }
    }

    @Property(tries = 300)
    void piecesInAnyCutMatchTheJdk(@ForAll("lengths") int length, @ForAll @IntRange(max = 1000) int firstCut,
            @ForAll @IntRange(max = 100) int secondCutPercent, @ForAll long seed) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = random(arena, length, seed);
            int cut1 = Math.min(firstCut, length);
            int cut2 = cut1 + (int) ((length - cut1) * (secondCutPercent / 100.0));
            Checksum running = Checksums.newCrc32c();
            running.update(bytes.asSlice(0, cut1).asByteBuffer());
            running.update(bytes.asSlice(cut1, cut2 - cut1).asByteBuffer().asReadOnlyBuffer());
            byte[] tail = bytes.asSlice(cut2).toArray(ValueLayout.JAVA_BYTE);
            if (tail.length > 0) {
                running.update(tail[0]);
                running.update(tail, 1, tail.length - 1);
            }
            assertThat((int) running.getValue()).isEqualTo(jdk(bytes));
        }
    }

    @Property(tries = 300)
    void eachCellMatchesTheJdk(@ForAll @IntRange(max = 5000) int cellBytes, @ForAll @IntRange(max = 40) int count,
            @ForAll @IntRange(max = 63) int offset, @ForAll boolean onHeap, @ForAll long seed) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment random = random(arena, offset + cellBytes * count, seed).asSlice(offset);
            MemorySegment cells = onHeap ? MemorySegment.ofArray(random.toArray(ValueLayout.JAVA_BYTE)) : random;
            int[] crcs = new int[count + 1];
            crcs[count] = 0x5EED;
            Checksums.cellCrcs(cells, cellBytes, count, crcs);
            for (int i = 0; i < count; i++) {
                assertThat(crcs[i]).as("cell %d of %d, %d bytes each", i, count, cellBytes)
                        .isEqualTo(jdk(cells.asSlice((long) i * cellBytes, cellBytes)));
            }
            assertThat(crcs[count]).as("the entry after the last cell").isEqualTo(0x5EED);
        }
    }

    @Example
    void cellsBeyondTheBytesOrTheArrayAreRefusedWithTheirSizes() {
        MemorySegment bytes = MemorySegment.ofArray(new byte[100]);
        assertThatThrownBy(() -> Checksums.cellCrcs(bytes, 50, 3, new int[3])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cells must lie within bytes and crcs: cellBytes=50, count=3, bytes.byteSize()=100, crcs.length=3");
        assertThatThrownBy(() -> Checksums.cellCrcs(bytes, 10, 3, new int[2])).hasMessageContaining("count=3")
                .hasMessageContaining("crcs.length=2");
        assertThatThrownBy(() -> Checksums.cellCrcs(bytes, -1, 1, new int[1])).hasMessageContaining("cellBytes=-1");
        assertThatThrownBy(() -> Checksums.cellCrcs(bytes, Long.MAX_VALUE / 2, 3, new int[3]))
                .hasMessageContaining("cellBytes=" + Long.MAX_VALUE / 2);
    }

    @Example
    void runningChecksumConsumesTheBufferAndResets() {
        Checksum running = Checksums.newCrc32c();
        ByteBuffer buffer = ByteBuffer.wrap("123456789".getBytes());
        running.update(buffer);
        assertThat(buffer.hasRemaining()).isFalse();
        assertThat((int) running.getValue()).isEqualTo(0xE3069283);
        running.reset();
        assertThat(running.getValue()).isZero();
    }

    @Provide
    Arbitrary<Integer> lengths() {
        return Arbitraries.integers().between(0, MAX_LENGTH).withDistribution(RandomDistribution.biased());
    }

    private static MemorySegment random(Arena arena, int length, long seed) {
        MemorySegment bytes = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            bytes.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return bytes;
    }

    private static int jdk(MemorySegment bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.asByteBuffer());
        return (int) crc.getValue();
    }
}

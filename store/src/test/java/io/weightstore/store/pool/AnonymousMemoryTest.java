package io.weightstore.store.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.Smaps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** On Linux, where the memory comes from mmap; elsewhere it is Arena.allocate's. */
class AnonymousMemoryTest {
    private static final long MIB = 1 << 20;

    @BeforeAll
    static void linux() {
        assumeTrue(StitchedMapping.supported(), "anonymous mappings are made on Linux only");
    }

    @Test
    void memoryIsZeroedWritableAndStartsOnAHugePage() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = AnonymousMemory.allocate(3 * MIB + 5, arena);

            assertThat(memory.byteSize()).isEqualTo(3 * MIB + 5);
            assertThat(memory.address() % PoolFile.HUGE_PAGE).as("address modulo 2 MiB").isZero();
            assertThat(memory.isReadOnly()).isFalse();
            assertThat(memory.asSlice(memory.byteSize() - 4096).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
            memory.set(ValueLayout.JAVA_LONG_UNALIGNED, memory.byteSize() - 8, -1L);
            assertThat(memory.get(ValueLayout.JAVA_LONG_UNALIGNED, memory.byteSize() - 8)).isEqualTo(-1L);
        }
    }

    @Test
    void closingTheArenaUnmapsTheMemory() throws Exception {
        MemorySegment memory;
        try (Arena arena = Arena.ofConfined()) {
            memory = AnonymousMemory.allocate(4 * MIB, arena);
            memory.fill((byte) 7);
            assertThat(Smaps.hugePageAdvised(memory.address(), memory.address() + memory.byteSize())).isTrue();
        }
        // Another thread's mapping may take the addresses at once, but none of the JVM's is advised to huge pages.
        assertThat(Smaps.hugePageAdvised(memory.address(), memory.address() + memory.byteSize())).as("ours after close").isFalse();
        assertThatThrownBy(() -> memory.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anEngineMayHoldMoreThanTheJvmsDirectMemoryLimit() throws Exception {
        // As a prefetcher hands an engine its batches: each in an automatic arena, all held. Arena.allocate counts them
        // against the direct-memory limit (the heap's when none is set, as in the tests) and refuses the one past it.
        long chunk = 64 * MIB;
        List<MemorySegment> held = new ArrayList<>();
        for (long total = 0; total <= Runtime.getRuntime().maxMemory(); total += chunk) {
            MemorySegment memory = AnonymousMemory.allocate(chunk, Arena.ofAuto());
            memory.set(ValueLayout.JAVA_BYTE, chunk - 1, (byte) 1);
            held.add(memory);
        }

        assertThat(held).allSatisfy(memory -> assertThat(memory.get(ValueLayout.JAVA_BYTE, chunk - 1)).isEqualTo((byte) 1));
    }

    @Test
    void touchedMemoryIsBackedByHugePagesWhereTheKernelGivesThemOnAdvice() throws Exception {
        Path enabled = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        Path defrag = Path.of("/sys/kernel/mm/transparent_hugepage/defrag");
        assumeTrue(Files.isReadable(enabled) && !Files.readString(enabled).contains("[never]"), "transparent huge pages are off");
        // Where a fault may not compact memory for a huge page, it takes small pages when none is free.
        assumeTrue(Files.isReadable(defrag) && Files.readString(defrag).matches("(?s).*\\[(always|madvise|defer\\+madvise)\\].*"),
                "faults here do not wait for a huge page");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = AnonymousMemory.allocate(8 * MIB, arena);
            memory.fill((byte) 1);

            assertThat(Smaps.kib(memory, "AnonHugePages")).as("kB in huge pages").isPositive();
        }
    }

    @Test
    void reclaimableMemoryIsTheKernelsToTakeBackAndStaysUsable() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = AnonymousMemory.allocate(4 * MIB, arena);
            memory.fill((byte) 7);
            assertThat(Smaps.kib(memory, "LazyFree")).as("kB lazily freed before").isZero();

            AnonymousMemory.reclaimable(memory);

            // At least most of it: the kernel moves small pages to its lazily freed list in batches.
            assertThat(Smaps.kib(memory, "LazyFree")).as("kB lazily freed").isGreaterThanOrEqualTo(3 * 1024);
            memory.set(ValueLayout.JAVA_LONG_UNALIGNED, 3 * MIB, 42L);
            assertThat(memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 3 * MIB)).isEqualTo(42L);
        }
    }

    @Test
    void onlyMemoryAsAllocateGaveItMayBeMadeReclaimable() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = AnonymousMemory.allocate(4 * MIB, arena);

            assertThatThrownBy(() -> AnonymousMemory.reclaimable(memory.asSlice(4096))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("address=0x");
        }
    }

    @Test
    void anEmptyAllocationIsAnEmptySegmentAndANegativeOneIsRefused() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(AnonymousMemory.allocate(0, arena).byteSize()).isZero();
            assertThatThrownBy(() -> AnonymousMemory.allocate(-1, arena)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bytes=-1");
        }
    }
}

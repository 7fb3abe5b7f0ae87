package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Tensors an engine keeps, in memory no JVM limit on direct memory bounds, and small ones without a mapping each. */
@EnabledOnOs(OS.LINUX)
class TensorMemoryTest {
    @Test
    void largeTensorsTogetherMayExceedTheJvmsDirectMemoryLimit() throws IOException {
        // With no -XX:MaxDirectMemorySize, as in these tests, the limit is the heap's maximum.
        long limit = Runtime.getRuntime().maxMemory();
        List<MemorySegment> kept = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            MemorySegment tensor = TensorMemory.allocate(limit / 2);
            tensor.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            tensor.set(ValueLayout.JAVA_BYTE, tensor.byteSize() - 1, (byte) 2);
            kept.add(tensor);
        }

        assertThat(kept.stream().mapToLong(MemorySegment::byteSize).sum()).as("bytes held at once").isGreaterThan(limit);
        assertThat(kept).allSatisfy(tensor -> {
            assertThat(tensor.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 1);
            assertThat(tensor.get(ValueLayout.JAVA_BYTE, tensor.byteSize() - 1)).isEqualTo((byte) 2);
        });
    }

    @Test
    void smallTensorsDoNotEachTakeAMappingOfTheirOwn() throws IOException {
        List<MemorySegment> kept = new ArrayList<>();
        long mappingsBefore = mappings();
        for (int i = 0; i < 2_000; i++) {
            kept.add(TensorMemory.allocate(4096));
        }

        assertThat(mappings() - mappingsBefore).as("new mappings for 2,000 tensors of 4 KiB").isLessThan(200);
        assertThat(kept).allSatisfy(tensor -> assertThat(tensor.address() % 64).isZero());
    }

    private static long mappings() throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.count();
        }
    }
}

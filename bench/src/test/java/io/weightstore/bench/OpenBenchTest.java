package io.weightstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenBenchTest {
    @TempDir
    Path tmp;

    @Test
    void timesEachPhaseOfEveryLoadOfACheckpointOfManyFilesAndLeavesNoPoolBehind() throws Exception {
        Path sources = Files.createDirectories(tmp.resolve("sources"));
        Path pools = Files.createDirectories(tmp.resolve("pools"));
        OpenBench.Report report = OpenBench.run(sources, pools, 12 << 20, 1 << 20, 2);

        Path source;
        try (Stream<Path> dirs = Files.list(sources)) {
            source = dirs.toList().getFirst();
        }
        long weightFiles;
        long weightBytes;
        try (Stream<Path> listed = Files.list(source)) {
            weightFiles = listed.filter(p -> p.toString().endsWith(".safetensors")).count();
        }
        try (Stream<Path> listed = Files.list(source)) {
            weightBytes = listed.filter(p -> p.toString().endsWith(".safetensors")).mapToLong(p -> p.toFile().length()).sum();
        }
        assertThat(report.weightFiles()).isEqualTo(weightFiles).isGreaterThan(8);
        assertThat(report.weightBytes()).isEqualTo(weightBytes);
        assertThat(report.warmUpLoads()).isEqualTo(Measurement.WARM_UP_RUNS);
        assertThat(report.loads()).hasSize(2).allSatisfy(load -> {
            assertThat(load.openMillis()).isPositive();
            assertThat(load.streamMillis()).isPositive();
            assertThat(load.closeMillis()).isPositive();
            assertThat(load.totalMillis()).isEqualTo(load.openMillis() + load.streamMillis() + load.closeMillis());
        });
        try (Stream<Path> left = Files.list(pools)) {
            assertThat(left).as("the cluster's pools are removed").isEmpty();
        }
    }

    @Test
    void runsBelowOneAreRefused() {
        assertThatThrownBy(() -> OpenBench.run(tmp, tmp, 12 << 20, 1 << 20, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runs must be >= 1: runs=0");
    }
}

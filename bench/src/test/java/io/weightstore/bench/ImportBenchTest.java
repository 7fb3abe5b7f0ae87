package io.weightstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImportBenchTest {
    @TempDir
    Path tmp;

    @Test
    void measuresImportBothCeilingsAndItsStepsOverEveryFileAndLeavesOnlyTheSourceBehind() throws Exception {
        ImportBench.Report report = ImportBench.run(tmp, 6 << 20, 2 << 20, 2, 2);

        Path source;
        try (Stream<Path> dirs = Files.list(tmp)) {
            source = dirs.toList().getFirst();
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(source)) {
            files = listed.toList();
        }
        assertThat(report.files()).isEqualTo(files.size()).isGreaterThan(3);
        assertThat(report.checkpointBytes()).isEqualTo(ImportCeilings.totalBytes(files));
        for (Measurement m : List.of(report.sourceRead(), report.sha256Mapped(), report.sha256Read(), report.importRun())) {
            assertThat(m.bytes()).as(m.path()).isEqualTo(report.checkpointBytes());
            assertThat(m.gbPerSecond()).as(m.path()).hasSize(2).allSatisfy(rate -> assertThat(rate).isPositive());
        }
        double sha256 = Math.max(report.sha256Mapped().median(), report.sha256Read().median());
        assertThat(report.sha256().median()).isEqualTo(sha256);
        assertThat(report.ceiling()).isEqualTo(Math.min(report.sourceRead().median(), sha256));
        assertThat(report.stages().importSteps()).extracting(Measurement::path)
                .containsExactly("SHA-256 + CRC table, 1 core", "block CRC32C, 1 core", "write into a fresh pool, 1 core");
        double coreSecondsPerGb = report.stages().importSteps().stream().mapToDouble(m -> 1 / m.median()).sum();
        assertThat(report.stages().bestImportGbPerSecond()).isCloseTo(report.threads() / coreSecondsPerGb, within(1e-9));
        // The import hashes and copies every byte: it cannot have run on no CPU.
        assertThat(report.importCpu().coreSecondsPerGb()).isPositive();
        assertThat(report.importCpu().cores()).isPositive();
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).as("the stores are removed; the checkpoint stays for the next run").containsExactly(source);
        }
    }

    @Test
    void runsBelowOneAreRefused() {
        assertThatThrownBy(() -> ImportBench.run(tmp, 6 << 20, 2 << 20, 0, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runs must be >= 1: runs=0");
    }
}

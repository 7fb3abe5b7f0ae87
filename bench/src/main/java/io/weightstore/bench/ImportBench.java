package io.weightstore.bench;

import com.sun.management.OperatingSystemMXBean;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.ImportResult;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code model import} of a synthetic checkpoint into a fresh embedded store, timed in turns with
 * the two ceilings it cannot beat on this machine: reading the source out of the page cache, and
 * SHA-256 on every core, over mapped files and over reads, the faster of which counts
 * ({@link ImportCeilings}); and with what each of its steps costs one core ({@link ImportStageCosts}),
 * which says how close to the ceilings the cores allow it to come.
 */
public final class ImportBench {
    private static final CheckpointId ID = new CheckpointId("bench-import");
    private static final int CONNECTIONS = 4;
    /** The process's CPU time in nanoseconds; /proc's counters tick every 10 ms, too coarse for a small import. */
    private static final OperatingSystemMXBean PROCESS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ImportBench() {}

    /**
     * What one bench run measured.
     *
     * @param files files in the checkpoint, all of them imported and in the ceilings
     * @param threads threads of the ceilings: the cores the JVM sees
     */
    public record Report(long checkpointBytes, int files, int threads, int parallelFiles, Measurement sourceRead,
            Measurement sha256Mapped, Measurement sha256Read, Measurement importRun, ImportCpu importCpu, StageCosts stages) {
        /** SHA-256 on every core the faster way on this machine: over mapped files, or over what reads bring in. */
        public Measurement sha256() {
            return sha256Read.median() > sha256Mapped.median() ? sha256Read : sha256Mapped;
        }

        /** The lower ceiling: what an import that hashes every byte can at best reach. */
        public double ceiling() {
            return Math.min(sourceRead.median(), sha256().median());
        }
    }

    /**
     * One core's speed at each step ({@link ImportStageCosts}); {@code importSteps} are those an import
     * runs, and {@code bestImportGbPerSecond} what they allow on every core with perfect overlap.
     */
    public record StageCosts(List<Measurement> all, List<Measurement> importSteps, double bestImportGbPerSecond) {}

    /**
     * The CPU the import itself used, every thread of the process while it ran, medians over the runs:
     * whether it is short of its steps' bound for want of work in parallel (cores idle) or for work
     * beyond its steps (more core-seconds per GB than they add up to).
     */
    public record ImportCpu(double cores, double coreSecondsPerGb) {}

    /** One import's time and the process's CPU seconds over that time. */
    private record ImportRun(double seconds, double cpuSeconds) {}

    /**
     * Synthesises (or reuses) a checkpoint of about {@code size} bytes in shards of at most
     * {@code shardSize} under {@code dir}, then measures {@code runs} times in turns, after one
     * warm-up each; every import goes into an embedded store made for it under {@code dir}.
     */
    public static Report run(Path dir, long size, long shardSize, int runs, int parallelFiles) throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("runs must be >= 1: runs=" + runs);
        }
        Path source = SyntheticSource.of(dir, size, shardSize);
        List<Path> files;
        try (Stream<Path> listed = Files.list(source)) {
            files = listed.filter(Files::isRegularFile).sorted().toList();
        }
        long bytes = ImportCeilings.totalBytes(files);
        int threads = Runtime.getRuntime().availableProcessors();
        Path stores = dir.resolve("import-stores");
        // Emptied first: a store left by a run that was killed would already hold the checkpoint.
        WorkDirectory.recreate(stores);
        ImportStageCosts costs = new ImportStageCosts(CheckpointDirectory.read(source), stores);
        try (ImportCeilings ceilings = new ImportCeilings(files, threads)) {
            // The ceilings first, the steps after them, the import last: one turn of each per run.
            List<Measurement.Timed> limits = List.of(ceilings.sourceRead(bytes), ceilings.sha256Mapped(bytes),
                    ceilings.sha256Read(bytes), costs.sha256(bytes), costs.digests(bytes), costs.blockCrcs(bytes),
                    costs.writeIntoFreshPool(bytes));
            double[][] rates = new double[limits.size() + 1][runs];
            double[] cores = new double[runs];
            double[] coreSecondsPerGb = new double[runs];
            for (int run = -1; run < runs; run++) {
                for (int p = 0; p < limits.size(); p++) {
                    long start = System.nanoTime();
                    limits.get(p).work().run();
                    if (run >= 0) {
                        rates[p][run] = bytes / ((System.nanoTime() - start) / 1e9) / 1e9;
                    }
                }
                ImportRun imported = importOnce(stores, source, parallelFiles);
                if (run >= 0) {
                    rates[limits.size()][run] = bytes / imported.seconds() / 1e9;
                    cores[run] = imported.cpuSeconds() / imported.seconds();
                    coreSecondsPerGb[run] = imported.cpuSeconds() / (bytes / 1e9);
                }
            }
            List<Measurement> measured = new ArrayList<>();
            for (int p = 0; p < limits.size(); p++) {
                measured.add(measurement(limits.get(p), rates[p]));
            }
            List<Measurement> importSteps = List.of(measured.get(4), measured.get(5), measured.get(6));
            StageCosts stages = new StageCosts(measured.subList(3, measured.size()), importSteps,
                    ImportStageCosts.bestImportGbPerSecond(importSteps, threads));
            return new Report(bytes, files.size(), threads, parallelFiles, measured.get(0), measured.get(1), measured.get(2),
                    new Measurement("model import", "fresh embedded store, " + parallelFiles + " files at once", bytes,
                            Arrays.stream(rates[limits.size()]).boxed().toList()),
                    new ImportCpu(Measurement.median(cores), Measurement.median(coreSecondsPerGb)), stages);
        } finally {
            if (Files.exists(stores)) {
                WorkDirectory.delete(stores);
            }
        }
    }

    /**
     * One import into a store of its own, removed afterwards; its time is the importer's, not the store's start,
     * and so is its CPU, which counts every thread of this process while the import ran: nothing else runs then.
     */
    private static ImportRun importOnce(Path stores, Path source, int parallelFiles) throws Exception {
        Path home = stores.resolve("store");
        try (StoreClient store = EmbeddedStore.open(home, EmbeddedStore.DEFAULT_CAPACITY,
                ClientOptions.defaults().withConnections(CONNECTIONS))) {
            long cpu = PROCESS.getProcessCpuTime();
            ImportResult result = new CheckpointImporter(new Catalog(store)).run(new ImportRequest(ID, "bench/synth", "main", source,
                    1, false, parallelFiles), Progress.NONE);
            return new ImportRun(result.seconds(), (PROCESS.getProcessCpuTime() - cpu) / 1e9);
        } finally {
            WorkDirectory.delete(home);
        }
    }

    private static Measurement measurement(Measurement.Timed path, double[] rates) {
        return new Measurement(path.path(), path.detail(), path.bytes(), Arrays.stream(rates).boxed().toList());
    }
}

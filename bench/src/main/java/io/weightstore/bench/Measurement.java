package io.weightstore.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Throughputs of repeated runs of one path, in GB/s (10^9 bytes per second). */
public record Measurement(String path, String detail, long bytes, List<Double> gbPerSecond) {
    /**
     * Untimed runs before the timed ones: the loader's code is still being compiled through its first
     * loads (a loopback load of 2 GB ran at 3.8, 4.9 and 5.4 GB/s in its first three runs, 7.4-8.4 after,
     * while a raw socket, with no code to compile, was steady from its first), and a ratio to a ceiling
     * would measure the JIT.
     */
    static final int WARM_UP_RUNS = 3;

    public Measurement {
        gbPerSecond = List.copyOf(gbPerSecond);
    }

    public double median() {
        return median(gbPerSecond.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The middle of {@code values}, or the mean of the two middle ones; every bench's median is this one. */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    public double min() {
        return gbPerSecond.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    }

    public double max() {
        return gbPerSecond.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** Runs {@code work} (which moves {@code bytes}) {@code runs} times after the warm-up runs. */
    public static Measurement of(String path, String detail, long bytes, int runs, Work work) throws Exception {
        return of(path, detail, bytes, runs, () -> {}, work);
    }

    /** As above, running {@code setup} untimed before each run (to drop caches, say). */
    public static Measurement of(String path, String detail, long bytes, int runs, Work setup, Work work) throws Exception {
        for (int i = 0; i < WARM_UP_RUNS; i++) {
            setup.run();
            work.run();
        }
        double[] rates = new double[runs];
        for (int i = 0; i < runs; i++) {
            setup.run();
            long start = System.nanoTime();
            work.run();
            rates[i] = bytes / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
        return new Measurement(path, detail, bytes, Arrays.stream(rates).boxed().toList());
    }

    /**
     * Times several paths in turns: the warm-up runs of each, then run 1 of every path, run 2 of every path,
     * and so on. On a shared machine whose speed drifts over minutes, paths compared by a ratio
     * then see the same drift, where measuring one after the other would credit it to one of them.
     */
    public static List<Measurement> interleaved(int runs, List<Timed> paths) throws Exception {
        double[][] rates = new double[paths.size()][runs];
        for (int i = 0; i < WARM_UP_RUNS; i++) {
            for (Timed path : paths) {
                path.work().run();
            }
        }
        for (int run = 0; run < runs; run++) {
            for (int p = 0; p < paths.size(); p++) {
                long start = System.nanoTime();
                paths.get(p).work().run();
                rates[p][run] = paths.get(p).bytes() / ((System.nanoTime() - start) / 1e9) / 1e9;
            }
        }
        List<Measurement> measurements = new ArrayList<>();
        for (int p = 0; p < paths.size(); p++) {
            Timed path = paths.get(p);
            measurements.add(new Measurement(path.path(), path.detail(), path.bytes(), Arrays.stream(rates[p]).boxed().toList()));
        }
        return measurements;
    }

    /** A path to time with {@link #interleaved}: what it is, the bytes one run moves, and the run. */
    public record Timed(String path, String detail, long bytes, Work work) {}

    /** One timed repetition. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }
}

package io.weightstore.bench;

import java.util.Arrays;
import java.util.List;

/** Throughputs of repeated runs of one path, in GB/s (10^9 bytes per second). */
public record Measurement(String path, String detail, long bytes, List<Double> gbPerSecond) {
    public Measurement {
        gbPerSecond = List.copyOf(gbPerSecond);
    }

    public double median() {
        double[] sorted = gbPerSecond.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    public double min() {
        return gbPerSecond.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    }

    public double max() {
        return gbPerSecond.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** Runs {@code work} (which moves {@code bytes}) {@code runs} times after one warm-up run. */
    public static Measurement of(String path, String detail, long bytes, int runs, Work work) throws Exception {
        return of(path, detail, bytes, runs, () -> {}, work);
    }

    /** As above, running {@code setup} untimed before each run (to drop caches, say). */
    public static Measurement of(String path, String detail, long bytes, int runs, Work setup, Work work) throws Exception {
        setup.run();
        work.run();
        double[] rates = new double[runs];
        for (int i = 0; i < runs; i++) {
            setup.run();
            long start = System.nanoTime();
            work.run();
            rates[i] = bytes / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
        return new Measurement(path, detail, bytes, Arrays.stream(rates).boxed().toList());
    }

    /** One timed repetition. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }
}

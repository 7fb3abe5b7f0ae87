package io.weightstore.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Call latencies by operation, from many threads, and their percentiles; failures are counted apart. */
public final class Latencies {
    /** One operation's figures: calls that succeeded in the window, failures, and latency percentiles in milliseconds. */
    public record Summary(String op, long calls, long failures, double perSecond, double p50Ms, double p99Ms, double maxMs) {}

    private static final class Samples {
        private long[] nanos = new long[1024];
        private int count;
        private long failures;

        synchronized void add(long value) {
            if (count == nanos.length) {
                nanos = Arrays.copyOf(nanos, count * 2);
            }
            nanos[count++] = value;
        }

        synchronized void fail() {
            failures++;
        }

        synchronized Summary summarize(String op, double seconds) {
            long[] sorted = Arrays.copyOf(nanos, count);
            Arrays.sort(sorted);
            return new Summary(op, count, failures, count / seconds, percentile(sorted, 0.50), percentile(sorted, 0.99),
                    count == 0 ? 0 : sorted[count - 1] / 1e6);
        }

        private static double percentile(long[] sorted, double p) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
        }
    }

    /** A timed call that may fail. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws Exception;
    }

    private final Map<String, Samples> byOp = new TreeMap<>();

    private synchronized Samples samples(String op) {
        return byOp.computeIfAbsent(op, o -> new Samples());
    }

    /** Runs and times {@code call} as {@code op}; a failure is counted and rethrown. */
    <T> T time(String op, Call<T> call) throws Exception {
        Samples samples = samples(op);
        long start = System.nanoTime();
        try {
            T result = call.run();
            samples.add(System.nanoTime() - start);
            return result;
        } catch (Exception e) {
            samples.fail();
            throw e;
        }
    }

    synchronized List<Summary> summarize(double seconds) {
        return byOp.entrySet().stream().map(e -> e.getValue().summarize(e.getKey(), seconds)).toList();
    }
}

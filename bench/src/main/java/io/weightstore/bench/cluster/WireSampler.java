package io.weightstore.bench.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples NIC counters of some hosts every few milliseconds while a phase runs, so that the phase
 * can be timed on the wire, on one clock, whatever the processes' own start-up times: when each
 * receiving host got its first and its last bytes, and how many bytes all of them received while
 * all of them were receiving.
 */
final class WireSampler implements AutoCloseable {
    private static final long PERIOD_MILLIS = 10;

    /** A reading: when, and each watched host's receive and send counters. */
    record Sample(long nanos, long[] rx, long[] tx) {}

    private final List<Host> hosts;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile IOException failure;

    WireSampler(List<Host> hosts) throws IOException {
        this.hosts = List.copyOf(hosts);
        samples.add(read());
        thread = Thread.ofPlatform().daemon().name("wire-sampler").start(this::loop);
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(PERIOD_MILLIS);
                Sample sample = read();
                synchronized (samples) {
                    samples.add(sample);
                }
            } catch (IOException e) {
                failure = e;
                return;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Sample read() throws IOException {
        long[] rx = new long[hosts.size()];
        long[] tx = new long[hosts.size()];
        long nanos = System.nanoTime();
        for (int i = 0; i < hosts.size(); i++) {
            rx[i] = hosts.get(i).rxBytes();
            tx[i] = hosts.get(i).txBytes();
        }
        return new Sample(nanos, rx, tx);
    }

    /** Stops sampling (after one last reading) and returns the phase's timing. */
    Timing stop() throws IOException {
        running = false;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        samples.add(read());
        return new Timing(List.copyOf(samples));
    }

    @Override
    public void close() {
        running = false;
    }

    /**
     * The samples of one phase. A host's active interval runs from when it had received 1% of the
     * bytes it received in the phase to when it had received 99% (so a few bytes of metadata before,
     * or a connection's close after, do not stretch it).
     */
    record Timing(List<Sample> samples) {
        long rxBytes(int host) {
            return samples.getLast().rx()[host] - samples.getFirst().rx()[host];
        }

        long txBytes(int host) {
            return samples.getLast().tx()[host] - samples.getFirst().tx()[host];
        }

        /** Seconds from the phase's start to when {@code host} had received {@code fraction} of its bytes. */
        double reached(int host, double fraction) {
            long base = samples.getFirst().rx()[host];
            double target = base + fraction * rxBytes(host);
            for (int i = 1; i < samples.size(); i++) {
                Sample before = samples.get(i - 1);
                Sample after = samples.get(i);
                if (after.rx()[host] >= target) {
                    double span = after.rx()[host] - before.rx()[host];
                    double part = span == 0 ? 1 : (target - before.rx()[host]) / span;
                    return seconds(before.nanos() + part * (after.nanos() - before.nanos()));
                }
            }
            return seconds(samples.getLast().nanos());
        }

        /** Seconds from the phase's start to a {@link System#nanoTime()} reading. */
        double secondsAt(long nanos) {
            return seconds(nanos);
        }

        double start(int host) {
            return reached(host, 0.01);
        }

        double end(int host) {
            return reached(host, 0.99);
        }

        /** Bytes all {@code hosts} received together between two times (seconds from the start), interpolated. */
        double rxBetween(List<Integer> hosts, double from, double to) {
            double total = 0;
            for (int host : hosts) {
                total += rxAt(host, to) - rxAt(host, from);
            }
            return total;
        }

        private double rxAt(int host, double at) {
            for (int i = 1; i < samples.size(); i++) {
                Sample before = samples.get(i - 1);
                Sample after = samples.get(i);
                double t1 = seconds(after.nanos());
                if (t1 >= at) {
                    double t0 = seconds(before.nanos());
                    double part = t1 == t0 ? 1 : (at - t0) / (t1 - t0);
                    return before.rx()[host] + part * (after.rx()[host] - before.rx()[host]);
                }
            }
            return samples.getLast().rx()[host];
        }

        private double seconds(double nanos) {
            return (nanos - samples.getFirst().nanos()) / 1e9;
        }
    }
}

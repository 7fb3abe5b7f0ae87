package io.weightstore.bench.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Runs one receiving process per host at once and times them on the wire (from NIC counters read
 * every 10 ms), behind an optional start barrier.
 *
 * <p>JVMs starting on this machine's 2 shared cores begin seconds apart, often further apart than a
 * load lasts, where a cluster's hosts do not share cores. With the barrier, each receiving process is
 * stopped (SIGSTOP) once its host has received {@link #BARRIER_BYTES}, and all continue together when
 * every one got there. A stopped receiver's kernel stops its senders by TCP flow control: nothing is
 * dropped or retried. The processes' own times then include the hold (given, and subtracted beside
 * them); the wire times start at the release.
 */
final class PhaseRunner {
    /** What a receiving host gets before the start barrier holds its process. */
    static final long BARRIER_BYTES = 4L << 20;
    /** Receivers that overlap for less than this give no aggregate. */
    static final double MIN_OVERLAP_SECONDS = 0.2;
    private static final Duration PHASE_TIMEOUT = Duration.ofMinutes(30);
    private static final Duration BARRIER_TIMEOUT = Duration.ofMinutes(10);

    /** What a receiving process says about itself, parsed from its output. */
    record Report(long payloadBytes, Double seconds, Double gbPerSecond, Double fractionOfCheckpoint) {}

    @FunctionalInterface
    interface ReportParser {
        Report parse(int host, String output) throws IOException;
    }

    private final Path logs;
    private final long checkpointBytes;

    PhaseRunner(Path logs, long checkpointBytes) {
        this.logs = logs;
        this.checkpointBytes = checkpointBytes;
    }

    /**
     * Starts {@code command.apply(j)} on {@code receivers.get(j)} for every j at once, waits for all
     * (each must exit 0), and returns the phase timed on the NICs of the receivers and of {@code senders}.
     * Logs go to {@code name}-hostN.log.
     */
    Phase run(String name, List<Host> receivers, List<Host> senders, boolean barrier, IntFunction<List<String>> command,
            ReportParser parser) throws Exception {
        int n = receivers.size();
        List<Host> watched = new ArrayList<>(receivers);
        watched.addAll(senders);
        List<HostProcess> processes = new ArrayList<>();
        double[] held = new double[n];
        long releaseNanos = 0;
        WireSampler.Timing timing;
        try (WireSampler sampler = new WireSampler(watched)) {
            long[] base = new long[n];
            for (int j = 0; j < n; j++) {
                base[j] = receivers.get(j).rxBytes();
            }
            for (int j = 0; j < n; j++) {
                Host host = receivers.get(j);
                processes.add(host.start(logs.resolve(name + "-host" + host.index() + ".log"), command.apply(j)));
            }
            if (barrier) {
                releaseNanos = hold(receivers, processes, base, held);
            }
            for (HostProcess process : processes) {
                int exit = process.waitFor(PHASE_TIMEOUT);
                if (exit != 0) {
                    throw new IOException(name + ": " + process + " exited with " + exit + ": " + process.tail());
                }
            }
            timing = sampler.stop();
        } finally {
            processes.forEach(HostProcess::stop);
        }
        List<Report> reports = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            reports.add(parser.parse(receivers.get(j).index(), processes.get(j).output()));
        }
        return phase(timing, barrier ? timing.secondsAt(releaseNanos) : 0, barrier, receivers.stream().map(Host::index).toList(),
                senders.stream().map(Host::index).toList(), reports, held);
    }

    /**
     * The phase's figures from its wire timing (whose columns are the receivers, then the senders)
     * and the processes' reports.
     */
    Phase phase(WireSampler.Timing timing, double release, boolean barrier, List<Integer> receivers, List<Integer> senders,
            List<Report> reports, double[] held) {
        int n = receivers.size();
        double[] start = new double[n];
        double[] end = new double[n];
        for (int j = 0; j < n; j++) {
            start[j] = Math.max(timing.start(j), release);
            end[j] = timing.end(j);
        }
        List<Integer> all = IntStream.range(0, n).boxed().toList();
        long payload = reports.stream().mapToLong(Report::payloadBytes).sum();
        long wire = all.stream().mapToLong(timing::rxBytes).sum();
        double payloadPerWireByte = (double) payload / wire;
        double lastStart = Arrays.stream(start).max().orElseThrow();
        double firstEnd = Arrays.stream(end).min().orElseThrow();
        double firstStart = Arrays.stream(start).min().orElseThrow();
        double lastEnd = Arrays.stream(end).max().orElseThrow();
        double overlap = firstEnd - lastStart;
        Double aggregate = overlap >= MIN_OVERLAP_SECONDS
                ? timing.rxBetween(all, lastStart, firstEnd) * payloadPerWireByte / overlap / 1e9 : null;
        double wall = timing.rxBetween(all, firstStart, lastEnd) * payloadPerWireByte / (lastEnd - firstStart) / 1e9;

        List<Phase.Receiver> perReceiver = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            Report r = reports.get(j);
            long nic = timing.rxBytes(j);
            Double withoutHold = r.seconds() == null ? null : r.seconds() - held[j];
            perReceiver.add(new Phase.Receiver(receivers.get(j), r.payloadBytes(), nic, (double) nic / checkpointBytes,
                    r.fractionOfCheckpoint(), held[j], r.seconds(), r.gbPerSecond(), withoutHold,
                    withoutHold == null ? null : r.payloadBytes() / withoutHold / 1e9, start[j], end[j],
                    timing.rxBetween(List.of(j), start[j], end[j]) * r.payloadBytes() / nic / (end[j] - start[j]) / 1e9));
        }
        long served = IntStream.range(0, senders.size()).mapToLong(i -> timing.txBytes(n + i)).sum();
        List<Double> shares = IntStream.range(0, senders.size()).mapToObj(i -> (double) timing.txBytes(n + i) / served).toList();
        return new Phase(barrier, release, perReceiver, overlap, aggregate, lastEnd - firstStart, wall, senders, shares);
    }

    /**
     * Stops each receiving process once its host received {@link #BARRIER_BYTES} (or leaves it if it
     * already ended), then continues all of them with one {@code kill}; returns when (System.nanoTime).
     */
    private static long hold(List<Host> receivers, List<HostProcess> processes, long[] base, double[] held) throws Exception {
        int n = processes.size();
        long[] heldAt = new long[n];
        boolean[] settled = new boolean[n];
        List<String> stopped = new ArrayList<>();
        int remaining = n;
        long deadline = System.nanoTime() + BARRIER_TIMEOUT.toNanos();
        try {
            while (remaining > 0 && System.nanoTime() < deadline) {
                for (int j = 0; j < n; j++) {
                    if (settled[j]) {
                        continue;
                    }
                    if (!processes.get(j).isAlive()) {
                        settled[j] = true;
                        remaining--;
                    } else if (receivers.get(j).rxBytes() - base[j] >= BARRIER_BYTES) {
                        signal("-STOP", List.of(Long.toString(processes.get(j).pid())));
                        heldAt[j] = System.nanoTime();
                        stopped.add(Long.toString(processes.get(j).pid()));
                        settled[j] = true;
                        remaining--;
                    }
                }
                Thread.sleep(2);
            }
        } finally {
            if (!stopped.isEmpty()) {
                signal("-CONT", stopped);
            }
        }
        long release = System.nanoTime();
        for (int j = 0; j < n; j++) {
            held[j] = heldAt[j] == 0 ? 0 : (release - heldAt[j]) / 1e9;
        }
        return release;
    }

    private static void signal(String signal, List<String> pids) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", signal));
        command.addAll(pids);
        Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes());
        // A process that ended meanwhile cannot be continued, and needs not be.
        if (kill.waitFor() != 0 && signal.equals("-STOP")) {
            throw new IOException("kill " + signal + " " + pids + " failed: " + output.strip());
        }
    }
}

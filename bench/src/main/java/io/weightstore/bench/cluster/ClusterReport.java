package io.weightstore.bench.cluster;

import io.weightstore.bench.Measurement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What {@code bench cluster} measured: medians over the runs at the top, each run's phases in
 * {@code perRun}. GB/s are 10^9 payload bytes per second; a figure a run could not give is null.
 *
 * @param idealGbPerSecond the link-limited ideal of the fan-in: min(K, M) x NIC
 * @param rawAggregateGbPerSecond M raw TCP streams at once on the same hosts: the bed's own ceiling for the fan-in
 * @param aggregateGbPerSecond the M loaders together while all were loading
 * @param wallAggregateGbPerSecond the M loaders together from the first one's first byte to the last one's last
 * @param loaderGbPerSecond each loader's own rate, less the start barrier's hold
 * @param loaderWireGbPerSecond each loader's rate on its NIC, from 1% to 99% of its bytes
 * @param nodeShares each node host's fraction of the bytes all node hosts sent in the fan-ins, from their NIC counters
 * @param maxNodeShareToFair the largest share over the fair one (1/K)
 * @param nginxAggregateGbPerSecond the same M hosts fetching the same files from one nginx origin at once
 * @param tpBytesPerRankFraction at TP=T, the most any rank's NIC received, over the checkpoint's size
 * @param tpPayloadBytesPerRankFraction the same from the ranks' own count of the bytes they read
 * @param tpSlowestRankSeconds at TP=T, the slowest rank's own time less the hold (median over the runs)
 * @param wholeCheckpointLoaderSeconds the slowest fan-in loader's, each of which read the whole checkpoint (median over the runs)
 * @param tpWireSeconds at TP=T, the ranks' first byte to their last on their NICs (median over the runs)
 * @param fanInWireSeconds the same for the M fan-in loaders, each reading the whole checkpoint
 * @param sameHost one loader alone on a node's own host (it maps that node's pool)
 * @param remote one loader alone on a host with no node
 */
public record ClusterReport(Bed bed, long checkpointBytes, int checkpointFiles, int replicas, int connections, int runs,
        boolean startBarrier, double linkCeilingGbPerSecond, double idealGbPerSecond, Double rawAggregateGbPerSecond,
        Double aggregateGbPerSecond, Double ratioToIdeal, Double ratioToRaw, Double wallAggregateGbPerSecond,
        List<HostRate> loaderGbPerSecond, List<HostRate> loaderWireGbPerSecond, List<Double> nodeShares, double maxNodeShareToFair,
        double nginxIdealGbPerSecond, Double nginxAggregateGbPerSecond, Double nginxWallAggregateGbPerSecond, Double ratioToNginx,
        Integer tpSize, Double tpBytesPerRankFraction, Double tpPayloadBytesPerRankFraction, Double tpSlowestRankSeconds,
        Double wholeCheckpointLoaderSeconds, Double tpWireSeconds, Double fanInWireSeconds, SingleLoader sameHost, SingleLoader remote, Double sameHostSpeedup,
        List<Target> targets, List<String> notes, List<Run> perRun) {

    /** The bed the run used; the round trip is one byte's, between a node host and a loader host, over TCP. */
    public record Bed(int hosts, int nodes, int loaders, String roles, long nicBitsPerSecond, String shaping, double latencyMillis,
            double medianRoundTripMicros, int cores) {
        double nicGbPerSecond() {
            return nicBitsPerSecond / 8e9;
        }
    }

    /** One run's phases; {@code tp} is null at TP=1. */
    public record Run(Phase raw, Phase fanIn, Phase nginx, Phase tp, Phase sameHost, Phase remote) {}

    public record HostRate(int host, double gbPerSecond) {}

    /** One loader alone: its host, its own time and rate, and the share of the checkpoint that came over its NIC. */
    public record SingleLoader(int host, double seconds, double gbPerSecond, double fractionOverNic) {}

    /** One of issue 14's targets, as a ratio measured in this run. */
    public record Target(String what, String goal, Double measured, Boolean met) {
        static Target atLeast(String what, double goal, Double measured) {
            return new Target(what, ">= " + goal, measured, measured == null ? null : measured >= goal);
        }

        static Target atMost(String what, double goal, Double measured) {
            return new Target(what, "<= " + goal, measured, measured == null ? null : measured <= goal);
        }
    }

    /** The report of {@code runs} on {@code bed}, with {@code ceiling} the payload rate of one raw TCP stream between two hosts. */
    static ClusterReport of(Bed bed, long checkpointBytes, int checkpointFiles, int replicas, int connections, int tpSize,
            boolean barrier, double ceiling, List<Run> runs) {
        double nic = bed.nicGbPerSecond();
        int k = bed.nodes();
        double ideal = Math.min(k, bed.loaders()) * nic;
        List<Phase> fanIns = runs.stream().map(Run::fanIn).toList();
        Double raw = median(runs, Run::raw, Phase::aggregateGbPerSecond);
        Double aggregate = median(runs, Run::fanIn, Phase::aggregateGbPerSecond);
        Double nginx = median(runs, Run::nginx, Phase::aggregateGbPerSecond);

        // Each node host's bytes sent over every fan-in run.
        double[] sent = new double[k];
        for (Phase fanIn : fanIns) {
            for (int i = 0; i < k; i++) {
                sent[i] += fanIn.senderShares().get(i);
            }
        }
        double total = Arrays.stream(sent).sum();
        List<Double> shares = Arrays.stream(sent).map(s -> s / total).boxed().toList();
        double maxToFair = shares.stream().mapToDouble(Double::doubleValue).max().orElse(0) * k;

        Double tpWire = null;
        Double tpPayload = null;
        Double tpSeconds = null;
        Double whole = null;
        Double tpWireSeconds = null;
        if (tpSize > 1) {
            List<Phase.Receiver> ranks = runs.stream().flatMap(r -> r.tp().receivers().stream()).toList();
            tpWire = ranks.stream().mapToDouble(Phase.Receiver::fractionOfCheckpointOverNic).max().orElseThrow();
            tpPayload = ranks.stream().mapToDouble(Phase.Receiver::fractionOfCheckpoint).max().orElseThrow();
            tpSeconds = median(runs, Run::tp, ClusterReport::slowestWithoutHold);
            whole = median(runs, Run::fanIn, ClusterReport::slowestWithoutHold);
            tpWireSeconds = median(runs, Run::tp, Phase::wallSeconds);
        }
        SingleLoader sameHost = single(runs, Run::sameHost);
        SingleLoader remote = single(runs, Run::remote);
        Double ratioToNginx = ratio(aggregate, nginx);

        List<Target> targets = new ArrayList<>(List.of(
                Target.atLeast("aggregate / link-limited ideal", 0.85, ratio(aggregate, ideal)),
                Target.atMost("busiest node's share / fair share", 1.25, maxToFair),
                Target.atLeast("aggregate / single nginx origin", 3, ratioToNginx)));
        if (tpSize > 1) {
            // Issue 14 asks for 0.26 at TP=4: a rank's quarter, and a hundredth for what is replicated (norms) and headers.
            targets.add(Target.atMost("TP=" + tpSize + ": most a rank moved over its NIC / checkpoint", 1.0 / tpSize + 0.01, tpWire));
        }

        List<String> notes = new ArrayList<>();
        if (aggregate == null) {
            notes.add("the loaders did not all receive at once for " + PhaseRunner.MIN_OVERLAP_SECONDS + " s: no aggregate; use a"
                    + " larger --size");
        }
        if (barrier) {
            notes.add("start barrier: in each phase of several receivers, each was stopped after its first 4 MiB until all had"
                    + " started, then all continued at once (JVM start-up on this machine's shared cores staggers them by seconds);"
                    + " the processes' own times are given less the hold");
        }
        notes.add("GB/s are 10^9 payload bytes per second; ideals are NIC rates, of which TCP/IP/Ethernet headers take ~4.4% at"
                + " MTU 1500");
        notes.add("aggregate: payload rate while all receivers were receiving at once, timed from NIC counters every 10 ms;"
                + " wall: from the first receiver's first byte to the last one's last");

        return new ClusterReport(bed, checkpointBytes, checkpointFiles, replicas, connections, runs.size(), barrier, ceiling, ideal,
                raw, aggregate, ratio(aggregate, ideal), ratio(aggregate, raw), median(runs, Run::fanIn, Phase::wallAggregateGbPerSecond),
                perHost(fanIns, Phase.Receiver::gbPerSecondWithoutHold), perHost(fanIns, Phase.Receiver::wireGbPerSecond), shares,
                maxToFair, nic, nginx, median(runs, Run::nginx, Phase::wallAggregateGbPerSecond), ratioToNginx,
                tpSize > 1 ? tpSize : null, tpWire, tpPayload, tpSeconds, whole, tpWireSeconds, median(runs, Run::fanIn, Phase::wallSeconds),
                sameHost, remote,
                ratio(remote.seconds(), sameHost.seconds()), targets, notes, runs);
    }

    private static Double slowestWithoutHold(Phase phase) {
        return phase.receivers().stream().mapToDouble(Phase.Receiver::secondsWithoutHold).max().orElseThrow();
    }

    /** The median of one loader's phase over the runs. */
    private static SingleLoader single(List<Run> runs, Function<Run, Phase> phase) {
        List<Phase.Receiver> loads = runs.stream().map(r -> phase.apply(r).receivers().getFirst()).toList();
        return new SingleLoader(loads.getFirst().host(), median(loads.stream().map(Phase.Receiver::seconds).toList()),
                median(loads.stream().map(Phase.Receiver::gbPerSecond).toList()),
                median(loads.stream().map(Phase.Receiver::fractionOfCheckpointOverNic).toList()));
    }

    private static List<HostRate> perHost(List<Phase> phases, Function<Phase.Receiver, Double> value) {
        Map<Integer, List<Double>> byHost = new LinkedHashMap<>();
        for (Phase phase : phases) {
            for (Phase.Receiver r : phase.receivers()) {
                byHost.computeIfAbsent(r.host(), h -> new ArrayList<>()).add(value.apply(r));
            }
        }
        List<HostRate> rates = new ArrayList<>();
        byHost.forEach((host, values) -> rates.add(new HostRate(host, median(values))));
        return rates;
    }

    private static Double median(List<Run> runs, Function<Run, Phase> phase, Function<Phase, Double> value) {
        List<Double> values = runs.stream().map(phase).map(value).filter(Objects::nonNull).toList();
        return values.isEmpty() ? null : median(values);
    }

    static double median(List<Double> values) {
        return Measurement.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static Double ratio(Double numerator, Double denominator) {
        return numerator == null || denominator == null || denominator == 0 ? null : numerator / denominator;
    }
}

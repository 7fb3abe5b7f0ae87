package io.weightstore.bench.cluster;

import io.weightstore.cli.output.Table;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;

/** {@code bench fanout}'s report as text: one row per step, then each step's node shares. */
public final class FanOutTable {
    private FanOutTable() {}

    public static void print(PrintWriter out, FanOutReport report) {
        int engines = report.hosts() - 1;
        out.printf(Locale.ROOT, "bed: %d hosts, NICs %.3f GB/s each way, %d cores; master on host 0, a node and a loader on each of"
                + " hosts 1-%d%n", report.hosts(), report.nicGbPerSecond(), report.cores(), engines);
        out.printf(Locale.ROOT, "checkpoint: %s in %d files, imported at %d copies, slices of %s; loaders' own times%s%n",
                ByteSizes.format(report.checkpointBytes()), report.checkpointFiles(), report.importedReplicas(), report.sliceSize(),
                report.startBarrier() ? ", less the start barrier's hold" : "");
        Table table = new Table("STEP", "LOADERS", "COPIES/SLICE", "ON OWN NODE", "OVER NIC", "SLOWEST S", "MEDIAN S", "GB/S",
                "BUSIEST/FAIR").alignRight("LOADERS", "COPIES/SLICE", "ON OWN NODE", "OVER NIC", "SLOWEST S", "MEDIAN S", "GB/S",
                "BUSIEST/FAIR");
        for (FanOutReport.Step step : report.steps()) {
            table.row(step.name(), step.phase().receivers().size(), f(step.copiesPerSlice(), 2), f(step.localFraction(), 3),
                    f(step.meanFractionOverNic(), 3), f(step.slowestSeconds(), 2), f(step.medianSeconds(), 2),
                    f(step.aggregateGbPerSecond(), 3), step.maxShareToFair() == null ? "-" : f(step.maxShareToFair(), 2));
        }
        table.print(out);
        for (FanOutReport.Step step : report.steps()) {
            out.printf(Locale.ROOT, "%s: %s; bytes sent by hosts 1-%d: %s%n", step.name(), step.setting(), engines,
                    step.nodeShares().stream().map(s -> f(s, 3)).toList());
        }
        out.println("ON OWN NODE: the part of the checkpoint each loader's own node held when the step began (a same-host load maps"
                + " it); OVER NIC: the part that crossed each loader's NIC (frames, headers included); GB/s: every loader's bytes"
                + " over the slowest loader's time; BUSIEST/FAIR: the engine host that sent the most, over 1/" + engines);
        out.flush();
    }

    private static String f(double value, int digits) {
        return String.format(Locale.ROOT, "%." + digits + "f", value);
    }
}

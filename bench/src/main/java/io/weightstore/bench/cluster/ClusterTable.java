package io.weightstore.bench.cluster;

import io.weightstore.cli.output.Table;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;

/** {@code bench cluster}'s report as text: a table of rates against their ideals, then shares, TP, same host, targets. */
public final class ClusterTable {
    private ClusterTable() {}

    public static void print(PrintWriter out, ClusterReport report) {
        ClusterReport.Bed bed = report.bed();
        int k = bed.nodes();
        int m = bed.loaders();
        double nic = bed.nicGbPerSecond();
        out.printf(Locale.ROOT, "bed: %d hosts, NICs %s each way, %s, %d cores; %d node hosts, %d loader hosts%n", bed.hosts(),
                rate(bed.nicBitsPerSecond()), (bed.latencyMillis() == 0 ? "no added delay" : bed.latencyMillis() + " ms added delay")
                        + String.format(Locale.ROOT, " (round trip %.0f us)", bed.medianRoundTripMicros()),
                bed.cores(), k, m);
        out.println(bed.roles());
        out.printf(Locale.ROOT, "checkpoint: %s in %d files, %d replicas; %d connections per loader; %d run(s), medians%n",
                ByteSizes.format(report.checkpointBytes()), report.checkpointFiles(), report.replicas(), report.connections(),
                report.runs());
        Table table = new Table("PATH", "GB/S", "IDEAL GB/S", "RATIO").alignRight("GB/S", "IDEAL GB/S", "RATIO");
        row(table, "one raw TCP stream, host to host", report.linkCeilingGbPerSecond(), nic);
        row(table, m + " raw TCP streams at once (the bed's ceiling)", report.rawAggregateGbPerSecond(), report.idealGbPerSecond());
        row(table, "weightstore: " + m + " loaders from " + k + " nodes, all loading", report.aggregateGbPerSecond(),
                report.idealGbPerSecond());
        row(table, "weightstore: first byte to last byte", report.wallAggregateGbPerSecond(), report.idealGbPerSecond());
        row(table, "nginx origin: " + m + " curls, all loading", report.nginxAggregateGbPerSecond(), report.nginxIdealGbPerSecond());
        row(table, "nginx origin: first byte to last byte", report.nginxWallAggregateGbPerSecond(), report.nginxIdealGbPerSecond());
        for (int i = 0; i < report.loaderGbPerSecond().size(); i++) {
            ClusterReport.HostRate own = report.loaderGbPerSecond().get(i);
            ClusterReport.HostRate wire = report.loaderWireGbPerSecond().get(i);
            row(table, "  loader on host " + own.host() + ": its own rate, less the hold", own.gbPerSecond(), nic);
            row(table, "  loader on host " + wire.host() + ": on its NIC, 1% to 99% of its bytes", wire.gbPerSecond(), nic);
        }
        row(table, "one loader alone on node host " + report.sameHost().host() + " (same host)", report.sameHost().gbPerSecond(), nic);
        row(table, "one loader alone on host " + report.remote().host() + " (remote)", report.remote().gbPerSecond(), nic);
        table.print(out);

        out.printf(Locale.ROOT, "node shares of the bytes served: %s (the busiest %.2f x its fair share)%n",
                report.nodeShares().stream().map(s -> String.format(Locale.ROOT, "%.3f", s)).toList(), report.maxNodeShareToFair());
        out.printf(Locale.ROOT, "weightstore / raw TCP streams: %s; weightstore / nginx origin: %s%n", ratio(report.ratioToRaw()),
                ratio(report.ratioToNginx()));
        if (report.tpSize() != null) {
            out.printf(Locale.ROOT, "TP=%d on %d hosts: each rank moved at most %.3f of the checkpoint over its NIC (%.3f by its own count);"
                    + " on the wire the ranks took %.2f s, first byte to last, against %.2f s for %d loaders each reading the whole"
                    + " checkpoint; by their own clocks the slowest rank %.2f s, against %.2f s%n",
                    report.tpSize(), report.tpSize(), report.tpBytesPerRankFraction(), report.tpPayloadBytesPerRankFraction(),
                    report.tpWireSeconds(), report.fanInWireSeconds(), m, report.tpSlowestRankSeconds(),
                    report.wholeCheckpointLoaderSeconds());
        }
        out.printf(Locale.ROOT, "same host: %.2f s, %.3f of the checkpoint over its NIC (the rest mapped from its node's pool);"
                + " remote: %.2f s, %.3f over its NIC; same host %s faster%n", report.sameHost().seconds(),
                report.sameHost().fractionOverNic(), report.remote().seconds(), report.remote().fractionOverNic(),
                ratio(report.sameHostSpeedup()));
        Table targets = new Table("TARGET (ISSUE 14)", "GOAL", "MEASURED", "MET").alignRight("MEASURED");
        for (ClusterReport.Target t : report.targets()) {
            targets.row(t.what(), t.goal(), t.measured() == null ? "n/a" : String.format(Locale.ROOT, "%.3f", t.measured()),
                    t.met() == null ? "n/a" : t.met() ? "yes" : "NO");
        }
        targets.print(out);
        for (String note : report.notes()) {
            out.println("note: " + note);
        }
        out.flush();
    }

    private static void row(Table table, String label, Double value, double ideal) {
        table.row(label, value == null ? "n/a" : f(value), f(ideal), value == null ? "" : String.format(Locale.ROOT, "%.2f", value / ideal));
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String ratio(Double value) {
        return value == null ? "n/a" : String.format(Locale.ROOT, "%.2fx", value);
    }

    static String rate(long bitsPerSecond) {
        return bitsPerSecond >= 1_000_000_000 ? String.format(Locale.ROOT, "%.3g Gbit/s", bitsPerSecond / 1e9)
                : String.format(Locale.ROOT, "%.3g Mbit/s", bitsPerSecond / 1e6);
    }
}

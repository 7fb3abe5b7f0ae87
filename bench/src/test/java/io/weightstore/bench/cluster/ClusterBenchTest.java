package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.weightstore.cli.WeightstoreCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code bench cluster}'s flags, its wire arithmetic and its report, without a bed. */
class ClusterBenchTest {
    @Test
    void theHelpExplainsEveryFlag() {
        StringWriter out = new StringWriter();
        CommandLine cli = WeightstoreCli.commandLine();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("bench", "cluster", "--help")).isZero();
        for (String flag : List.of("--hosts", "--nodes", "--loaders", "--nic-rate", "--latency", "--size", "--replicas", "--tp-size",
                "--runs", "--json", "--out", "--connections", "--no-barrier", "--prefix")) {
            assertThat(out.toString()).contains(flag);
        }
    }

    @Test
    void refusesFlagsThatCannotWorkAsUsageErrors() {
        assertThatThrownBy(() -> settings(4 + 4 - 1, 4, 4, 2, 1)).hasMessageContaining("--hosts 7 is too few");
        assertThat(settings(4 + 4, 4, 4, 2, 1).originAlone()).isFalse();
        assertThat(settings(1 + 4 + 4, 4, 4, 2, 1).originAlone()).isTrue();
        assertThatThrownBy(() -> settings(5, 2, 2, 3, 1)).hasMessageContaining("exceeds --nodes");
        assertThatThrownBy(() -> settings(5, 2, 2, 2, 4)).hasMessageContaining("--tp-size 4 needs as many loader hosts");
        assertThatThrownBy(() -> settings(5, 0, 2, 1, 1)).hasMessageContaining("--nodes must be >= 1");

        StringWriter err = new StringWriter();
        CommandLine cli = WeightstoreCli.commandLine();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("bench", "cluster", "--nodes", "2", "--replicas", "3")).isEqualTo(2);
        assertThat(err.toString()).contains("--replicas 3 exceeds --nodes 2");
        assertThat(cli.execute("bench", "cluster", "--size", "lots")).isEqualTo(2);
        assertThat(cli.execute("bench", "cluster", "--latency", "0.0001")).isEqualTo(2);
        assertThat(err.toString()).contains("--latency must be >= 0 ms in steps of 0.001 ms, found 0.0001");
    }

    @Test
    void wireTimingInterpolatesBetweenSamples() {
        WireSampler.Timing timing = twoReceivers();
        assertThat(timing.rxBytes(0)).isEqualTo(10_000);
        assertThat(timing.start(0)).isCloseTo(0.11, within(0.005));
        assertThat(timing.end(0)).isCloseTo(1.09, within(0.005));
        assertThat(timing.start(1)).isCloseTo(0.505, within(0.005));
        // Both receive between 0.5 s and 1.0 s: 5000 + 5000 bytes.
        assertThat(timing.rxBetween(List.of(0, 1), 0.5, 1.0)).isCloseTo(10_000, within(150.0));
        assertThat(timing.secondsAt(Math.round(0.25e9))).isCloseTo(0.25, within(1e-9));
    }

    @Test
    void aPhaseAggregatesWhileAllReceiveAndSharesWhatTheSendersSent() {
        PhaseRunner runner = new PhaseRunner(Path.of("unused"), 20_000);
        // Two receivers and, in the timing's last two columns, two senders.
        Phase phase = runner.phase(twoReceivers(), 0, false, List.of(5, 6), List.of(1, 2),
                List.of(new PhaseRunner.Report(10_000, 1.0, null, 0.5), new PhaseRunner.Report(5_000, 0.5, null, 0.25)),
                new double[2]);
        // All receive at once from 0.5 s to 1.0 s, 20000 bytes per second together.
        assertThat(phase.overlapSeconds()).isCloseTo(0.49, within(0.01));
        assertThat(phase.aggregateGbPerSecond()).isCloseTo(20_000 / 1e9, within(1e-6));
        assertThat(phase.senderShares()).containsExactly(0.75, 0.25);
        assertThat(phase.receivers().get(1).fractionOfCheckpointOverNic()).isEqualTo(0.25);
    }

    @Test
    void theReportComparesWithTheIdealTheOriginAndTheFairShare() {
        ClusterReport.Bed bed = new ClusterReport.Bed(9, 4, 4, "roles", 1_000_000_000L, "tbf", 0, 50, 2);
        Phase fanIn = phase(0.45, List.of(0.3, 0.2, 0.25, 0.25), 10.0, 1.0);
        Phase nginx = phase(0.12, List.of(1.0), null, 1.0);
        Phase tp = phase(0.4, List.of(0.25, 0.25, 0.25, 0.25), 3.0, 0.252);
        Phase one = phase(0.1, List.of(0.25, 0.25, 0.25, 0.25), 8.0, 1.0);
        ClusterReport report = ClusterReport.of(bed, 1_000_000, 6, 2, 4, 4, true, 0.118,
                List.of(new ClusterReport.Run(fanIn, fanIn, nginx, tp, one, one)));
        assertThat(report.idealGbPerSecond()).isEqualTo(0.5);
        assertThat(report.ratioToIdeal()).isCloseTo(0.9, within(1e-9));
        assertThat(report.ratioToNginx()).isCloseTo(3.75, within(1e-9));
        assertThat(report.maxNodeShareToFair()).isCloseTo(1.2, within(1e-9));
        assertThat(report.tpBytesPerRankFraction()).isEqualTo(0.252);
        assertThat(report.tpSlowestRankSeconds()).isEqualTo(3.0);
        assertThat(report.wholeCheckpointLoaderSeconds()).isEqualTo(10.0);
        assertThat(report.targets()).extracting(ClusterReport.Target::met).containsExactly(true, true, true, true);
    }

    private static ClusterBench.Settings settings(int hosts, int nodes, int loaders, int replicas, int tpSize) {
        return new ClusterBench.Settings(hosts, nodes, loaders, "1gbit", 0, "256M", replicas, tpSize, 1, 4, true, "wsbedtest",
                Path.of("out"));
    }

    /** A phase with one figure of interest per field; the rest is whatever keeps the record valid. */
    private static Phase phase(double aggregate, List<Double> shares, Double seconds, double fraction) {
        Phase.Receiver receiver = new Phase.Receiver(5, 1, 1, fraction, fraction, 0, seconds, 0.1, seconds, 0.1, 0, 1, 0.1);
        return new Phase(true, 0, List.of(receiver), 1, aggregate, 1, aggregate, List.of(), shares);
    }

    /**
     * Host 0 receives 100 bytes per 10 ms from 0.1 s to 1.1 s (10000 bytes); host 1 from 0.5 s to
     * 1.0 s; senders 2 and 3 send 7500 and 2500 bytes over the same second.
     */
    private static WireSampler.Timing twoReceivers() {
        List<WireSampler.Sample> samples = new ArrayList<>();
        for (int i = 0; i <= 150; i++) {
            double t = i * 0.01;
            long rx0 = (long) (Math.clamp(t - 0.1, 0, 1.0) * 10_000);
            long rx1 = (long) (Math.clamp(t - 0.5, 0, 0.5) * 10_000);
            long tx2 = (long) (Math.clamp(t - 0.1, 0, 1.0) * 7_500);
            long tx3 = (long) (Math.clamp(t - 0.1, 0, 1.0) * 2_500);
            samples.add(new WireSampler.Sample(Math.round(t * 1e9), new long[] {rx0, rx1, 0, 0}, new long[] {0, 0, tx2, tx3}));
        }
        return new WireSampler.Timing(samples);
    }
}

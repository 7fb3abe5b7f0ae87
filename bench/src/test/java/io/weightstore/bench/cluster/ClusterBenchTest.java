package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's flags and its wire arithmetic, without a bed. */
class ClusterBenchTest {
    @Test
    void defaultsGiveOneHostPerRoleAndTheIssuesSmallScale() {
        ClusterBench.Config config = ClusterBench.parse(new String[] {"--nodes", "4", "--loaders", "4"});
        assertThat(config.hosts()).isEqualTo(9);
        assertThat(config.nicRate()).isEqualTo("1gbit");
        assertThat(config.size()).isEqualTo("256M");
        assertThat(config.replicas()).isEqualTo(2);
        assertThat(config.barrier()).isTrue();
        assertThat(config.prefix()).matches("wsbed[a-z0-9]{4}");
    }

    @Test
    void refusesFlagsThatCannotWork() {
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--nodes", "4", "--loaders", "4", "--hosts", "8"}))
                .hasMessageContaining("too few");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--nodes", "2", "--replicas", "3"})).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--loaders", "2", "--tp-size", "4"})).hasMessageContaining("--tp-size");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--size", "lots"})).hasMessageContaining("NUM[K|M|G|T]");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--frobnicate", "1"})).hasMessageContaining("unknown option");
    }

    @Test
    void sizesAreBinary() {
        assertThat(ClusterBench.parseSize("256M")).isEqualTo(256L << 20);
        assertThat(ClusterBench.parseSize("2g")).isEqualTo(2L << 30);
        assertThat(ClusterBench.parseSize("1000")).isEqualTo(1000);
    }

    @Test
    void wireTimingInterpolatesBetweenSamples() {
        // Host 0 receives 100 bytes per 10 ms from 0.1 s to 1.1 s (10000 bytes); host 1 from 0.5 s to 1.0 s.
        List<WireSampler.Sample> samples = new ArrayList<>();
        for (int i = 0; i <= 150; i++) {
            double t = i * 0.01;
            long rx0 = (long) (Math.clamp(t - 0.1, 0, 1.0) * 10_000);
            long rx1 = (long) (Math.clamp(t - 0.5, 0, 0.5) * 10_000);
            samples.add(new WireSampler.Sample(Math.round(t * 1e9), new long[] {rx0, rx1}, new long[] {0, 0}));
        }
        WireSampler.Timing timing = new WireSampler.Timing(samples);
        assertThat(timing.rxBytes(0)).isEqualTo(10_000);
        assertThat(timing.start(0)).isCloseTo(0.11, within(0.005));
        assertThat(timing.end(0)).isCloseTo(1.09, within(0.005));
        assertThat(timing.start(1)).isCloseTo(0.505, within(0.005));
        // Both receive between 0.5 s and 1.0 s: 5000 + 5000 bytes.
        assertThat(timing.rxBetween(List.of(0, 1), 0.5, 1.0)).isCloseTo(10_000, within(150.0));
        assertThat(timing.secondsAt(Math.round(0.25e9))).isCloseTo(0.25, within(1e-9));
    }
}

package io.weightstore.store;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/** Reads one counter or gauge out of a registry, as a scrape would see it. */
public final class Metrics {
    private Metrics() {}

    /**
     * The value of {@code name} (a counter without its {@code _total}) with exactly the labels
     * {@code labelPairs} (name, value, name, value ...), or 0 when there is no such series yet.
     */
    public static double value(PrometheusRegistry registry, String name, String... labelPairs) {
        Labels wanted = Labels.of(labelPairs);
        for (MetricSnapshot metric : registry.scrape()) {
            if (!metric.getMetadata().getName().equals(name)) {
                continue;
            }
            for (DataPointSnapshot point : metric.getDataPoints()) {
                if (point.getLabels().equals(wanted)) {
                    return switch (point) {
                        case CounterSnapshot.CounterDataPointSnapshot c -> c.getValue();
                        case GaugeSnapshot.GaugeDataPointSnapshot g -> g.getValue();
                        default -> throw new AssertionError(name + " is neither a counter nor a gauge");
                    };
                }
            }
        }
        return 0;
    }

    /** The sum of {@code name}'s counter series that carry the label {@code label} with {@code value}, whatever their others. */
    public static double sum(PrometheusRegistry registry, String name, String label, String value) {
        double sum = 0;
        for (MetricSnapshot metric : registry.scrape()) {
            if (metric.getMetadata().getName().equals(name)) {
                for (DataPointSnapshot point : metric.getDataPoints()) {
                    if (value.equals(point.getLabels().get(label))) {
                        sum += ((CounterSnapshot.CounterDataPointSnapshot) point).getValue();
                    }
                }
            }
        }
        return sum;
    }

    /** Whether {@code name} has any series at all. */
    public static boolean reported(PrometheusRegistry registry, String name) {
        for (MetricSnapshot metric : registry.scrape()) {
            if (metric.getMetadata().getName().equals(name) && !metric.getDataPoints().isEmpty()) {
                return true;
            }
        }
        return false;
    }
}

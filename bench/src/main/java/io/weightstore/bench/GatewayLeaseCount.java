package io.weightstore.bench;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.weightstore.gateway.S3Gateway;

/**
 * The GETs a gateway answered and the read leases it took for them, from its metrics: each lease is
 * a master call to take and one to release, so their ratio is the master round trips per GET.
 */
record GatewayLeaseCount(long gets, long leases) {
    static GatewayLeaseCount of(S3Gateway gateway) {
        long gets = 0;
        long leases = 0;
        for (MetricSnapshot metric : gateway.metrics().registry().scrape()) {
            if (!(metric instanceof CounterSnapshot counter)) {
                continue;
            }
            String name = counter.getMetadata().getPrometheusName();
            for (CounterSnapshot.CounterDataPointSnapshot point : counter.getDataPoints()) {
                if (name.equals("weightstore_gateway_requests") && "GET".equals(point.getLabels().get("method"))) {
                    gets += (long) point.getValue();
                } else if (name.equals("weightstore_gateway_read_leases_taken")) {
                    leases += (long) point.getValue();
                }
            }
        }
        return new GatewayLeaseCount(gets, leases);
    }

    /** For the report: how many GETs shared each lease, and the master calls per GET that leaves. */
    String describe(String path) {
        return String.format("%s: %d GETs took %d read leases (%.2f master calls per GET for leases, 2 without sharing)", path, gets,
                leases, gets == 0 ? 0.0 : 2.0 * leases / gets);
    }
}

package io.weightstore.gateway;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.transfer.TransferSlots;
import java.util.Set;

/**
 * The gateway's requests by method and status code with their latency, object bytes sent, and
 * its transfer slots and read leases, on a registry of its own. The store client's reads (failovers, checksum
 * failures) are in the client's registry, which the CLI serves beside this one.
 */
public final class GatewayMetrics {
    /**
     * Methods counted under their own name; any other is counted as {@code other}. A request's method
     * is whatever token its client sends, before any credential is checked: as a label it would let
     * anyone add series without end.
     */
    private static final Set<String> LABELLED_METHODS = Set.of("GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS");

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests;
    private final Histogram seconds;
    private final CounterDataPoint sentBytes;

    GatewayMetrics(TransferSlots slots, CheckpointBucket bucket) {
        requests = Counter.builder().name("weightstore_gateway_requests")
                .help("HTTP requests answered, by method and status code").labelNames("method", "status").withoutExemplars()
                .register(registry);
        seconds = Histogram.builder().name("weightstore_gateway_request_duration_seconds")
                .help("Time from a request's arrival to the end of its response, by method").labelNames("method").classicOnly()
                .classicUpperBounds(0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300).withoutExemplars()
                .register(registry);
        sentBytes = Counter.builder().name("weightstore_gateway_sent_bytes")
                .help("Object bytes sent in GET responses").withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("weightstore_gateway_transfers_running").help("Object transfers and bucket listings in progress")
                .callback(cb -> cb.call(slots.running())).register(registry);
        GaugeWithCallback.builder().name("weightstore_gateway_transfers_waiting").help("Transfers and listings waiting for a slot")
                .callback(cb -> cb.call(slots.waiting())).register(registry);
        // A leased file cannot be deleted without force: this says whether the gateway is why a delete was refused.
        GaugeWithCallback.builder().name("weightstore_gateway_read_leases")
                .help("Read leases held, each for one file and the GETs of it in flight").callback(cb -> cb.call(bucket.leasesHeld()))
                .register(registry);
        // Against the GETs answered, this says how many master round trips the sharing of leases saved.
        CounterWithCallback.builder().name("weightstore_gateway_read_leases_taken")
                .help("Read leases taken, a master call each to take and to release; shared by the GETs of a file in flight together")
                .callback(cb -> cb.call(bucket.leasesTaken())).register(registry);
    }

    void answered(String method, int status, long nanos) {
        String label = LABELLED_METHODS.contains(method) ? method : "other";
        requests.labelValues(label, Integer.toString(status)).inc();
        seconds.labelValues(label).observe(nanos / 1e9);
    }

    void sent(long bytes) {
        sentBytes.inc(bytes);
    }

    public PrometheusRegistry registry() {
        return registry;
    }
}

package io.weightstore.store.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.weightstore.store.wire.Op;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * A storage node's data plane: requests, bytes and time per operation, checksum blocks that did not
 * match (corruption the node's scrubber found, apart from CRCs readers sent that the pool's bytes did
 * not match), and the pool's size. Per-operation data points are looked up once here, so a request
 * costs a few adds and one histogram observation.
 */
public final class NodeMetrics {
    private final PrometheusRegistry registry;
    private final Map<Op, CounterDataPoint> requests = new EnumMap<>(Op.class);
    private final Map<Op, CounterDataPoint> bytes = new EnumMap<>(Op.class);
    private final Map<Op, DistributionDataPoint> seconds = new EnumMap<>(Op.class);
    private final CounterDataPoint checksumFailures;
    private final CounterDataPoint readerChecksumMismatches;

    public NodeMetrics() {
        this(new PrometheusRegistry());
    }

    public NodeMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        Counter requestCount = Counter.builder().name("weightstore_node_requests")
                .help("Data-plane requests served, by operation").labelNames("op").withoutExemplars().register(registry);
        Counter sent = Counter.builder().name("weightstore_node_sent_bytes")
                .help("Pool bytes sent to clients, by read operation").labelNames("op").withoutExemplars().register(registry);
        Counter received = Counter.builder().name("weightstore_node_received_bytes")
                .help("Bytes written into the pool by clients").withoutExemplars().register(registry);
        Histogram duration = Histogram.builder().name("weightstore_node_request_duration_seconds")
                .help("Time to serve a data-plane request, checksum checks and transfer included, by operation")
                .labelNames("op").classicOnly().classicUpperBounds(Buckets.TRANSFER_SECONDS).withoutExemplars().register(registry);
        for (Op op : Op.values()) {
            String label = op.name().toLowerCase(Locale.ROOT);
            requests.put(op, requestCount.labelValues(label));
            bytes.put(op, op == Op.WRITE ? received : sent.labelValues(label));
            seconds.put(op, duration.labelValues(label));
        }
        checksumFailures = Counter.builder().name("weightstore_node_checksum_failures")
                .help("Checksum blocks the node's scrubber found not matching the master's checksums: corruption in the pool")
                .withoutExemplars().register(registry);
        readerChecksumMismatches = Counter.builder().name("weightstore_node_reader_checksum_mismatches")
                .help("Checksum blocks a read was answered CORRUPT for, the pool's bytes not matching the CRC its reader sent:"
                        + " a rotten copy, or a reader whose metadata is not the master's")
                .withoutExemplars().register(registry);
    }

    /** Reports what the node is, read at each scrape. */
    public void watch(LongSupplier poolCapacity, IntSupplier openConnections, BooleanSupplier registered) {
        GaugeWithCallback.builder().name("weightstore_node_pool_capacity_bytes").help("Size of the node's pool")
                .callback(cb -> cb.call(poolCapacity.getAsLong())).register(registry);
        GaugeWithCallback.builder().name("weightstore_node_connections").help("Data-plane connections open now")
                .callback(cb -> cb.call(openConnections.getAsInt())).register(registry);
        GaugeWithCallback.builder().name("weightstore_node_registered")
                .help("1 while the node is registered with its master, else 0")
                .callback(cb -> cb.call(registered.getAsBoolean() ? 1 : 0)).register(registry);
    }

    /** One request served: {@code bytes} of payload moved in {@code nanos}. */
    public void served(Op op, long payloadBytes, long nanos) {
        requests.get(op).inc();
        bytes.get(op).inc(payloadBytes);
        seconds.get(op).observe(nanos / 1e9);
    }

    /** The scrubber found a block that does not match the master's checksum: the pool holds rot. */
    public void checksumFailure() {
        checksumFailures.inc();
    }

    /**
     * A reader's CRC did not match a block: the CRC came with the request, so the node cannot tell a rotten copy from
     * a reader with stale or forged metadata, and does not count it as corruption (the scrubber's check says which).
     */
    public void readerChecksumMismatch() {
        readerChecksumMismatches.inc();
    }

    public PrometheusRegistry registry() {
        return registry;
    }
}

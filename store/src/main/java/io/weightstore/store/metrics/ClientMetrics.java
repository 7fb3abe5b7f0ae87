package io.weightstore.store.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.LongSupplier;

/**
 * A store client's reads: bytes, by node and path, the time each piece took, pieces that had to
 * move to another replica, and why replicas failed. Per node here, since a same-host read maps the
 * node's pool and the node never sees it. A process that reads through a client (an engine, serve, the gateway) puts this registry
 * beside its own, so a failing node or a rotten copy shows in that process's metrics too.
 */
public final class ClientMetrics {
    private final PrometheusRegistry registry;
    private final CounterDataPoint failovers;
    private final CounterDataPoint corrupt;
    private final CounterDataPoint unavailable;
    private final CounterDataPoint unreachable;
    private final CounterDataPoint busy;
    private final Counter nodeBytes;
    private final Histogram pieceSeconds;

    public ClientMetrics() {
        this(new PrometheusRegistry());
    }

    public ClientMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        failovers = Counter.builder().name("weightstore_client_replica_failovers")
                .help("Read pieces served by another replica after the first one tried failed").withoutExemplars()
                .register(registry);
        Counter failures = Counter.builder().name("weightstore_client_replica_failures")
                .help("Replica reads that failed, by reason: corrupt (a checksum block did not match, on arrival or on the node),"
                        + " unavailable (the node refused, or stayed busy past the base deadline), unreachable (connection or"
                        + " deadline), busy (the node had no connection to spare: the read asked another replica or waited;"
                        + " once per replica and piece)")
                .labelNames("reason").withoutExemplars().register(registry);
        corrupt = failures.labelValues("corrupt");
        unavailable = failures.labelValues("unavailable");
        unreachable = failures.labelValues("unreachable");
        busy = failures.labelValues("busy");
        nodeBytes = Counter.builder().name("weightstore_client_node_read_bytes")
                .help("Bytes read from each node's replicas, by path: socket (the data plane) or mapped (the pool file on this host)")
                .labelNames("node", "path").withoutExemplars().register(registry);
        pieceSeconds = Histogram.builder().name("weightstore_client_piece_read_duration_seconds")
                .help("Time to read one piece (up to the client's piece size, 16 MiB by default) from a replica and check it, by path")
                .labelNames("path").classicOnly().classicUpperBounds(Buckets.TRANSFER_SECONDS).withoutExemplars().register(registry);
    }

    /** Reports the bytes this client read, from the reader's own count, at each scrape. */
    public void watch(LongSupplier bytesRead) {
        CounterWithCallback.builder().name("weightstore_client_read_bytes")
                .help("Object bytes read by this client (exactly those asked for)")
                .callback(cb -> cb.call(bytesRead.getAsLong())).register(registry);
    }

    /** A piece of {@code bytes} came from {@code node}'s replica, mapped or over a socket, in {@code nanos}. */
    public void pieceRead(String node, boolean mapped, long bytes, long nanos) {
        String path = mapped ? "mapped" : "socket";
        nodeBytes.labelValues(node, path).inc(bytes);
        pieceSeconds.labelValues(path).observe(nanos / 1e9);
    }

    /** A piece was served by a replica other than the first one tried. */
    public void failedOver() {
        failovers.inc();
    }

    /** A replica answered that a checksum block did not match, or its bytes did not match on arrival. */
    public void replicaCorrupt() {
        corrupt.inc();
    }

    /** A replica's node refused the read for another reason (unknown to the master, out of range, busy past the base deadline). */
    public void replicaUnavailable() {
        unavailable.inc();
    }

    /** A replica's node had no connection to spare for a piece (counted once per replica and piece). */
    public void replicaBusy() {
        busy.inc();
    }

    /** A replica's node could not be reached, or missed its deadline. */
    public void replicaUnreachable() {
        unreachable.inc();
    }

    public PrometheusRegistry registry() {
        return registry;
    }
}

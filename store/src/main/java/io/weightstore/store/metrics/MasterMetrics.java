package io.weightstore.store.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.StoreStatus;
import java.util.Optional;

/**
 * A master: every gRPC call by method and status code with its latency, and, while this master
 * serves the cluster (alone, or as the leader of a group), the nodes, their pools, read leases,
 * evictions and node liveness changes. A follower reports its calls (mostly refusals) and
 * {@code weightstore_master_serving 0}, and no cluster gauges, so summing a group's masters counts
 * the cluster once.
 */
public final class MasterMetrics {
    private final PrometheusRegistry registry;
    private final Counter calls;
    private final Histogram callSeconds;
    private final CounterDataPoint evictions;
    private final CounterDataPoint evictedBytes;
    private final Counter transitions;
    private final Counter takeovers;
    private volatile ClusterView serving;

    public MasterMetrics() {
        this(new PrometheusRegistry());
    }

    public MasterMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        calls = Counter.builder().name("weightstore_master_calls")
                .help("gRPC calls answered, by method and status code (OK, UNAVAILABLE for a follower's refusal, ...)")
                .labelNames("method", "code").withoutExemplars().register(registry);
        callSeconds = Histogram.builder().name("weightstore_master_call_duration_seconds")
                .help("Time from a call's arrival to its answer, by method").labelNames("method").classicOnly()
                .classicUpperBounds(Buckets.CALL_SECONDS).withoutExemplars().register(registry);
        evictions = Counter.builder().name("weightstore_master_evictions")
                .help("Objects evicted (unpinned, least recently read) to make room for new ones").withoutExemplars()
                .register(registry);
        evictedBytes = Counter.builder().name("weightstore_master_evicted_bytes")
                .help("Bytes of the objects evicted, one copy each").withoutExemplars().register(registry);
        transitions = Counter.builder().name("weightstore_master_node_transitions")
                .help("Nodes seen to go down (no heartbeat within the deadline) or come back up").labelNames("to")
                .withoutExemplars().register(registry);
        takeovers = Counter.builder().name("weightstore_master_takeovers")
                .help("Elections this master won and began to serve, by where its records came from: copy (kept current while it"
                        + " followed) or load (read from etcd once elected)").labelNames("from").withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("weightstore_master_serving")
                .help("1 while this master serves the cluster (a master alone, or a group's leader), 0 for a follower")
                .callback(cb -> cb.call(serving == null ? 0 : 1)).register(registry);
        whileServing("weightstore_master_nodes", "Nodes the master knows, by state", new String[] {"state"}, (status, cb) -> {
            cb.call(status.nodesUp(), "up");
            cb.call(status.nodes().size() - status.nodesUp(), "down");
        });
        whileServing("weightstore_master_node_capacity_bytes", "Pool size of each node", new String[] {"node"}, (status, cb) -> {
            for (NodeStatus node : status.nodes()) {
                cb.call(node.capacity(), node.nodeId());
            }
        });
        whileServing("weightstore_master_node_used_bytes", "Bytes allocated in each node's pool", new String[] {"node"},
                (status, cb) -> {
                    for (NodeStatus node : status.nodes()) {
                        cb.call(node.used(), node.nodeId());
                    }
                });
        whileServing("weightstore_master_node_up", "1 while a node heartbeats within the deadline, else 0", new String[] {"node"},
                (status, cb) -> {
                    for (NodeStatus node : status.nodes()) {
                        cb.call(node.up() ? 1 : 0, node.nodeId());
                    }
                });
        whileServing("weightstore_master_objects", "Sealed objects", new String[0], (status, cb) -> cb.call(status.objects()));
        whileServing("weightstore_master_pending_puts", "Puts started and not yet sealed or aborted", new String[0],
                (status, cb) -> cb.call(status.pendingPuts()));
        GaugeWithCallback.builder().name("weightstore_master_read_leases").help("Read leases that have not ended")
                .callback(cb -> current().ifPresent(view -> cb.call(view.activeReadLeases()))).register(registry);
    }

    /** A gauge of the cluster's status, reported only while this master serves. */
    private void whileServing(String name, String help, String[] labels, StatusGauge gauge) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(labels)
                .callback(cb -> current().ifPresent(view -> gauge.report(view.status(), cb))).register(registry);
    }

    @FunctionalInterface
    private interface StatusGauge {
        void report(StoreStatus status, GaugeWithCallback.Callback callback);
    }

    private Optional<ClusterView> current() {
        return Optional.ofNullable(serving);
    }

    /** From now on the cluster gauges read {@code view}: this master serves. */
    public void serving(ClusterView view) {
        serving = view;
    }

    /** This master no longer serves (a leader deposed, or stopping). */
    public void stoppedServing(ClusterView view) {
        if (serving == view) {
            serving = null;
        }
    }

    /** One gRPC call answered with {@code code} after {@code nanos}. */
    public void call(String method, String code, long nanos) {
        calls.labelValues(method, code).inc();
        callSeconds.labelValues(method).observe(nanos / 1e9);
    }

    public void evicted(long bytes) {
        evictions.inc();
        evictedBytes.inc(bytes);
    }

    /** This master won an election and serves, from the records it kept while following or from a load. */
    public void tookOver(boolean fromCopy) {
        takeovers.labelValues(fromCopy ? "copy" : "load").inc();
    }

    public void nodeWentDown() {
        transitions.labelValues("down").inc();
    }

    public void nodeCameUp() {
        transitions.labelValues("up").inc();
    }

    public PrometheusRegistry registry() {
        return registry;
    }
}

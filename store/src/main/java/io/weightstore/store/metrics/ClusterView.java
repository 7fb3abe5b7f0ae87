package io.weightstore.store.metrics;

import io.weightstore.store.api.StoreStatus;

/** What a master serving the cluster knows now, read at each scrape. */
public interface ClusterView {
    /** Nodes with liveness, capacity and use; objects and pending puts. */
    StoreStatus status();

    /** Read leases that have not ended. */
    int activeReadLeases();
}

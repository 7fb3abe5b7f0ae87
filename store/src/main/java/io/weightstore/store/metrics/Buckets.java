package io.weightstore.store.metrics;

/** Histogram bucket bounds, in seconds, shared so dashboards can compare servers. */
final class Buckets {
    /** Master calls: memory lookups take microseconds, etcd writes milliseconds, a loaded leader up to a second or more. */
    static final double[] CALL_SECONDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** Data-plane requests: from a 4 KiB read in cache to a 1 GiB piece over a slow link. */
    static final double[] TRANSFER_SECONDS = {0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

    private Buckets() {}
}

/**
 * What the store's servers and clients count, in Prometheus' terms: one small object per server or
 * client ({@link MasterMetrics}, {@link NodeMetrics}, {@link ClientMetrics}), each on a registry
 * of its own, so two of them in one process (tests, the embedded store) count apart. Nothing here
 * serves HTTP: whoever runs a server scrapes its registry (the CLI's {@code --metrics-port}).
 * Counters on the data path are striped adders, resolved per label once, so counting costs a
 * handful of nanoseconds per request and never a lock.
 */
package io.weightstore.store.metrics;

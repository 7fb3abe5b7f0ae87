/**
 * Checkpoints on the store: the catalog (manifests, import, verify, inspect, delete, export) and
 * the loader that streams a checkpoint's tensors, or one tensor-parallel rank's share, into memory.
 */
module io.weightstore.weights {
    requires transitive io.weightstore.format;
    requires transitive io.weightstore.store;
    requires com.fasterxml.jackson.annotation;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires org.slf4j;

    exports io.weightstore.weights;
    exports io.weightstore.weights.loader;
    exports io.weightstore.weights.config;
    // The tensor CRC tables' parse is timed by a JMH benchmark.
    exports io.weightstore.weights.checks to io.weightstore.bench;

    // Jackson reads and writes the manifest records and reports by reflection.
    opens io.weightstore.weights to com.fasterxml.jackson.databind;
    opens io.weightstore.weights.loader to com.fasterxml.jackson.databind;
    opens io.weightstore.weights.config to com.fasterxml.jackson.databind;
}

/**
 * Jlama over the store: a WeightLoader for weightstore:// checkpoints, generation, and the
 * OpenAI-compatible server (Helidon SE) with its metrics.
 */
module io.weightstore.jlama {
    requires transitive io.weightstore.weights;
    requires transitive jlama.core;
    requires com.fasterxml.jackson.databind;
    requires com.google.common;
    requires io.helidon.common.buffers;
    requires io.helidon.http;
    requires io.helidon.logging.common;
    requires io.helidon.webserver;
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    requires jinjava;
    requires jdk.incubator.vector;
    requires org.slf4j;

    exports io.weightstore.jlama;
    exports io.weightstore.jlama.serve;

    // Jackson reads requests into, and writes responses from, the server's records.
    opens io.weightstore.jlama.serve to com.fasterxml.jackson.databind;

    provides io.helidon.logging.common.spi.LoggingProvider with io.weightstore.jlama.serve.HelidonLogging;
}

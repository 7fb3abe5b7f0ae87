/**
 * A read-only, S3-compatible gateway (AWS Signature V4) over the READY checkpoints of a store, on
 * Helidon SE: any S3 client, and any engine that streams weights from S3, reads checkpoints from it.
 */
module io.weightstore.gateway {
    requires transitive io.weightstore.weights;
    requires io.helidon.http;
    requires io.helidon.logging.common;
    requires io.helidon.webserver;
    requires org.slf4j;
    requires io.prometheus.metrics.core;
    requires transitive io.prometheus.metrics.model;

    exports io.weightstore.gateway;

    provides io.helidon.logging.common.spi.LoggingProvider with io.weightstore.gateway.logging.HelidonLogging;
}

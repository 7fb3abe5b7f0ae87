/**
 * A read-only, S3-compatible gateway (AWS Signature V4) over the READY checkpoints of a store, on
 * Netty: any S3 client, and any engine that streams weights from S3, reads checkpoints from it.
 */
module io.weightstore.gateway {
    requires transitive io.weightstore.weights;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires org.slf4j;
    requires io.prometheus.metrics.core;
    requires transitive io.prometheus.metrics.model;

    exports io.weightstore.gateway;
}

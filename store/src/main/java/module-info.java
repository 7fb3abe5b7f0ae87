/**
 * The store: objects cut into checksummed slices on storage nodes, a master that places them, and
 * the client that moves bytes straight between a process and the nodes. Other modules see the
 * domain API, the client, and the entry points of the master, node and embedded store.
 */
module io.weightstore.store {
    requires com.google.common;
    requires com.google.protobuf;
    requires io.grpc;
    requires io.grpc.netty.shaded;
    requires io.grpc.protobuf;
    requires io.grpc.services;
    requires io.grpc.stub;
    requires jetcd.core; // automatic module: jetcd's jars name none
    requires java.logging;
    requires org.bouncycastle.pkix;
    requires org.bouncycastle.provider;
    requires org.slf4j;
    requires transitive io.prometheus.metrics.core;
    requires transitive io.prometheus.metrics.model;
    requires rocksdbjni;

    exports io.weightstore.store.api;
    exports io.weightstore.store.client;
    exports io.weightstore.store.concurrent;
    exports io.weightstore.store.embedded;
    exports io.weightstore.store.ha;
    exports io.weightstore.store.master;
    exports io.weightstore.store.metrics;
    exports io.weightstore.store.node;
    exports io.weightstore.store.security;

    // The CRC32C the weights catalog checks tensors with, and the benchmarks measure.
    exports io.weightstore.store.checksum to io.weightstore.bench, io.weightstore.weights;

    // The socket options the S3 gateway sets on its listener, as the nodes do on theirs; the benchmarks too.
    exports io.weightstore.store.wire to io.weightstore.bench, io.weightstore.gateway;

    // Internals the benchmarks measure directly.
    exports io.weightstore.store.client.access to io.weightstore.bench;
    exports io.weightstore.store.client.plan to io.weightstore.bench;
    exports io.weightstore.store.grpc to io.weightstore.bench;
    // Memory the loader reads tensors into for engines that keep them; the benchmarks measure pool mappings; a node's
    // start line says what pages its pool gets; the gateway keys its checks in place by the copies it sends from.
    exports io.weightstore.store.pool to io.weightstore.bench, io.weightstore.weights, io.weightstore.cli, io.weightstore.gateway;
}

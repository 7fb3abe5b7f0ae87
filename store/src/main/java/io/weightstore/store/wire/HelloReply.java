package io.weightstore.store.wire;

/**
 * A node's answer to a hello: whether it admits the connection, and whether, from the next byte on,
 * both ends leave TLS for {@link MacTransport} (chunks authenticated but sent in clear, so the node
 * keeps sendfile) because the node was started that way.
 */
public record HelloReply(Status status, boolean switchToMac) {}

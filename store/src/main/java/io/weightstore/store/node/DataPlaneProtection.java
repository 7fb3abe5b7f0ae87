package io.weightstore.store.node;

/**
 * What a secure node's data plane protects once a connection is admitted. TLS encrypts and
 * authenticates every byte; MAC authenticates every chunk but sends it in clear, which spares the
 * encryption and keeps sendfile on the node, for clusters whose weights are not secret. Both start
 * with the same mutual TLS handshake and ticket check.
 */
public enum DataPlaneProtection {
    TLS,
    MAC
}

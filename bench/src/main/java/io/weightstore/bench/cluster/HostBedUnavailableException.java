package io.weightstore.bench.cluster;

/**
 * The bed cannot be made on this machine (not root, no {@code ip} or {@code tc}, namespaces not
 * permitted, a kernel feature missing). The message says which; a test turns it into a skip.
 */
public final class HostBedUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public HostBedUnavailableException(String reason) {
        super(reason);
    }
}

package io.weightstore.weights;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.UUID;

/**
 * Who holds a checkpoint's lock: the host and process of the writer, what it is doing, and a nonce
 * that tells two runs of the same process apart. Written into the store as {@code host/pid/operation/nonce}.
 */
public record LockOwner(String host, long pid, String operation, String nonce) {
    private static final String SEPARATOR = "/";

    public LockOwner {
        for (String part : new String[] {host, operation, nonce}) {
            if (part == null || part.isEmpty() || part.contains(SEPARATOR)) {
                throw new IllegalArgumentException("lock owner parts must be non-empty and free of '/': host=" + host
                        + " operation=" + operation + " nonce=" + nonce);
            }
        }
    }

    /** This process, about to do {@code operation}. */
    public static LockOwner current(String operation) {
        return new LockOwner(localHost(), ProcessHandle.current().pid(), operation, UUID.randomUUID().toString());
    }

    /** The owner a lock record names, or empty when another kind of writer wrote it. */
    public static Optional<LockOwner> parse(String text) {
        String[] parts = text.split(SEPARATOR, -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LockOwner(parts[0], Long.parseLong(parts[1]), parts[2], parts[3]));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A process on this host that no longer runs will never release what it holds. */
    public boolean isDeadLocalProcess() {
        return host.equals(localHost()) && ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    }

    static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName().replace(SEPARATOR, "_");
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    @Override
    public String toString() {
        return String.join(SEPARATOR, host, Long.toString(pid), operation, nonce);
    }
}

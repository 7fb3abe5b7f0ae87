package io.weightstore.weights;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;

/**
 * Who holds a checkpoint's lock: the host and process of the writer, what it is doing, and a nonce
 * that tells two runs of the same process apart. Written into the store as {@code host/pid/operation/nonce}.
 */
public record LockOwner(String host, long pid, String operation, String nonce) {
    private static final String SEPARATOR = "/";
    private static final String LOCAL_HOST = hostName() + scope().map(s -> "~" + s).orElse("");

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

    /**
     * This host as a lock names it: its name, then which boot of which machine and which PID namespace
     * ({@code ~} 8 hex digits of the boot id {@code .} the namespace's inode), so that a process of a
     * container that shares the host's name ({@code docker run --network host}), or of another machine
     * of the same name, is never taken for a local process that has died. Only the name where
     * {@code /proc} does not say.
     */
    static String localHost() {
        return LOCAL_HOST;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replace(SEPARATOR, "_");
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static Optional<String> scope() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
            String namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString().replaceAll("\\D", "");
            return Optional.of(boot.substring(0, Math.min(8, boot.length())) + "." + namespace);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return String.join(SEPARATOR, host, Long.toString(pid), operation, nonce);
    }
}

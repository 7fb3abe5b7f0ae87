package io.weightstore.store.node;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections that are not at work, and since when: in their handshake, or waiting for a request. A
 * client keeps its connections pooled, to the node's idle timeout, though it may never use them again
 * (an engine that finished its load); at the connection limit they would turn away a client that has
 * bytes to read. So there the node closes the one idle longest, if it has been idle for
 * {@link #MIN_IDLE_NANOS} at least (a connection between two pieces of a load in progress is idle for
 * microseconds), to admit the new connection. Its client finds it closed when it next uses it, before
 * any byte of an answer, and opens another, as it does for one the idle timeout closed. A client sends
 * its hello as soon as it is connected (and TLS is up), and its first request as soon as the hello is
 * answered, so a connection without a whole hello or a first request after that long is a peer that
 * stays silent or stops halfway; it is taken as well, or anyone who can reach the port could hold every
 * place without ever proving who they are.
 *
 * <p>Whoever takes a connection out of here owns it: the node to close it, or its handler to go on
 * with the handshake or request that arrived; a handler that finds it taken ends without answering.
 */
final class IdleConnections {
    static final long MIN_IDLE_NANOS = 1_000_000_000L;

    private final Map<SocketChannel, Long> since = new ConcurrentHashMap<>();

    /** {@code socket} waits for its handshake or its next request. */
    void idle(SocketChannel socket) {
        since.put(socket, System.nanoTime());
    }

    /** Claims {@code socket} for the handshake or request that arrived on it; false when the node took it to close. */
    boolean claim(SocketChannel socket) {
        return since.remove(socket) != null;
    }

    /** Drops {@code socket}, which ended, whatever its state. */
    void forget(SocketChannel socket) {
        since.remove(socket);
    }

    /** Closes the connection idle longest, if idle long enough; false when there is none. */
    boolean closeLongestIdle() {
        long now = System.nanoTime();
        while (true) {
            Optional<Map.Entry<SocketChannel, Long>> longest = since.entrySet().stream().min(Map.Entry.comparingByValue());
            if (longest.isEmpty() || now - longest.get().getValue() < MIN_IDLE_NANOS) {
                return false;
            }
            SocketChannel socket = longest.get().getKey();
            // Taken by one side only: a connection its handler claimed meanwhile is left alone.
            if (since.remove(socket, longest.get().getValue())) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // Closed all the same: its thread ends on the next read.
                }
                return true;
            }
        }
    }
}

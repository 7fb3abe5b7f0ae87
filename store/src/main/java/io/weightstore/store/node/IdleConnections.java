package io.weightstore.store.node;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections that served a request and wait for the next one, and since when. A client keeps such
 * connections pooled, to the node's idle timeout, though it may never use them again (an engine that
 * finished its load); at the connection limit they would turn away a client that has bytes to read.
 * So there the node closes the one idle longest, if it has been idle for {@link #MIN_IDLE_NANOS} at
 * least (a connection between two pieces of a load in progress is idle for microseconds), to admit
 * the new connection. Its client finds it closed when it next uses it, before any byte of an answer,
 * and opens another, as it does for one the idle timeout closed. A connection that served nothing
 * yet is never taken: its client has not pooled it, and would take the close as a failure.
 *
 * <p>Whoever takes a connection out of here owns it: the node to close it, or its handler to serve
 * the request that arrived; a handler that finds it taken ends without answering.
 */
final class IdleConnections {
    static final long MIN_IDLE_NANOS = 1_000_000_000L;

    private final Map<SocketChannel, Long> since = new ConcurrentHashMap<>();

    /** {@code socket} waits for its next request, having served one. */
    void idle(SocketChannel socket) {
        since.put(socket, System.nanoTime());
    }

    /** Claims {@code socket} for the request that arrived on it; false when the node took it to close. */
    boolean claim(SocketChannel socket) {
        return since.remove(socket) != null;
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

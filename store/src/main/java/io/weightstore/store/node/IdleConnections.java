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
 * So there the node closes the one idle longest to admit the new connection. Its client finds it
 * closed when it next uses it, before any byte of an answer, and opens another, as it does for one
 * the idle timeout closed. A connection that served nothing yet is never taken: its client has not
 * pooled it, and would take the close as a failure of its first request.
 */
final class IdleConnections {
    private final Map<SocketChannel, Long> since = new ConcurrentHashMap<>();

    /** {@code socket} waits for its next request, having served one. */
    void idle(SocketChannel socket) {
        since.put(socket, System.nanoTime());
    }

    /** {@code socket} has a request to serve, or is gone. */
    void busy(SocketChannel socket) {
        since.remove(socket);
    }

    /** Closes the connection idle longest; false when none is idle. */
    boolean closeLongestIdle() {
        while (true) {
            Optional<Map.Entry<SocketChannel, Long>> longest = since.entrySet().stream().min(Map.Entry.comparingByValue());
            if (longest.isEmpty()) {
                return false;
            }
            SocketChannel socket = longest.get().getKey();
            // Taken by one caller only; a connection that turned busy meanwhile is left alone.
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

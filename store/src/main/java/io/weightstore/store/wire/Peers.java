package io.weightstore.store.wire;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/** Small socket chores the transports share. */
final class Peers {
    private Peers() {}

    /** The remote address for messages, or "?" when the socket can no longer say. */
    static String address(SocketChannel socket) {
        try {
            return String.valueOf(socket.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // The connection is being abandoned; a failed close leaves nothing to undo.
        }
    }
}

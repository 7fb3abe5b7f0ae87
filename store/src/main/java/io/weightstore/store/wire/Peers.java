package io.weightstore.store.wire;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

/** Small socket chores the transports, and the node that accepts their sockets, share. */
public final class Peers {
    private Peers() {}

    /** The remote address for messages, or "?" when the socket can no longer say. */
    public static String address(SocketChannel socket) {
        try {
            return String.valueOf(socket.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * Runs {@code goodbye} (a courtesy frame that must not block) when no other thread holds
     * {@code reading} or {@code writing} and {@code healthy} holds, then closes {@code socket}. Never
     * waits for a lock, so a deadline may call it while another thread is stuck in the transport:
     * that thread's call fails.
     */
    static void closeAfterGoodbye(Lock reading, Lock writing, BooleanSupplier healthy, Runnable goodbye, SocketChannel socket) {
        boolean idleReader = reading.tryLock();
        try {
            boolean idleWriter = writing.tryLock();
            try {
                if (idleReader && idleWriter && healthy.getAsBoolean()) {
                    goodbye.run();
                }
            } finally {
                if (idleWriter) {
                    writing.unlock();
                }
            }
        } finally {
            if (idleReader) {
                reading.unlock();
            }
            closeQuietly(socket);
        }
    }

    public static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // The connection is being abandoned; a failed close leaves nothing to undo.
        }
    }
}

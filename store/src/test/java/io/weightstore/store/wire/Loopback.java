package io.weightstore.store.wire;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One real connection on 127.0.0.1, each end opened into a transport by its own thread, so both
 * handshakes run at once as they would on two machines. Platform threads, as the node uses: a
 * sendfile on a virtual thread does not block.
 */
final class Loopback {
    private Loopback() {}

    /** Makes a transport of a freshly connected socket, or fails. */
    @FunctionalInterface
    interface Opener {
        Transport open(SocketChannel socket) throws IOException;
    }

    /** What one end got: its transport, or why it has none; and its raw socket, for tests that break it. */
    record Outcome(Transport transport, IOException failure, SocketChannel socket) {
        Transport get() {
            if (failure != null) {
                throw new AssertionError("opening the transport failed", failure);
            }
            return transport;
        }
    }

    record Ends(Outcome server, Outcome client) implements AutoCloseable {
        Transport serverEnd() {
            return server.get();
        }

        Transport clientEnd() {
            return client.get();
        }

        @Override
        public void close() throws IOException {
            for (Outcome o : new Outcome[] {server, client}) {
                if (o.transport() != null) {
                    o.transport().close();
                }
                o.socket().close();
            }
        }
    }

    /** Connects, and opens the accepted end with {@code server} and the dialing end with {@code client}. */
    static Ends connect(Opener server, Opener client) throws Exception {
        return connect(server, client, UnaryOperator.identity());
    }

    /** As {@link #connect(Opener, Opener)}, the client dialing {@code route} of the server's address (a proxy's, say). */
    static Ends connect(Opener server, Opener client, UnaryOperator<SocketAddress> route) throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Outcome> accepted = inThread("accept", () -> open(listener.accept(), server));
            Outcome dialed = open(SocketChannel.open(route.apply(listener.getLocalAddress())), client);
            return new Ends(accepted.get(30, TimeUnit.SECONDS), dialed);
        }
    }

    private static Outcome open(SocketChannel socket, Opener opener) {
        try {
            return new Outcome(opener.open(socket), null, socket);
        } catch (IOException e) {
            return new Outcome(null, e, socket);
        }
    }

    /** Work whose result or failure a test collects. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws Exception;
    }

    /** Runs {@code work} on a platform thread of its own. */
    static <T> CompletableFuture<T> inThread(String name, Work<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("loopback-" + name).start(() -> {
            try {
                result.complete(work.run());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }
}

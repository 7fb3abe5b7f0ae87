package io.weightstore.store.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A man in the middle on loopback for one connection: relays bytes both ways, and flips one bit of
 * what the client sends at a chosen offset of its stream, handshake included.
 */
final class TamperingProxy implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final SocketAddress target;
    private final long flipAt;

    private TamperingProxy(SocketAddress target, long flipAt) throws IOException {
        this.listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.target = target;
        this.flipAt = flipAt;
        Loopback.inThread("proxy-accept", () -> {
            SocketChannel client = listener.accept();
            SocketChannel server = SocketChannel.open(target);
            Loopback.inThread("proxy-up", () -> relay(client, server, flipAt));
            Loopback.inThread("proxy-down", () -> relay(server, client, -1));
            return null;
        });
    }

    /** A proxy in front of {@code target}. */
    static TamperingProxy start(SocketAddress target, long flipAt) {
        try {
            return new TamperingProxy(target, flipAt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    SocketAddress address() throws IOException {
        return listener.getLocalAddress();
    }

    private static Void relay(SocketChannel from, SocketChannel to, long flipAt) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
        long relayed = 0;
        try (from; to) {
            while (from.read(buffer.clear()) >= 0) {
                buffer.flip();
                if (flipAt >= relayed && flipAt < relayed + buffer.limit()) {
                    int at = (int) (flipAt - relayed);
                    buffer.put(at, (byte) (buffer.get(at) ^ 0x10));
                }
                relayed += buffer.limit();
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }

    @Override
    public String toString() {
        return "TamperingProxy[to " + target + ", flipping byte " + flipAt + "]";
    }
}

package io.weightstore.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A man in the middle on loopback: forwards every connection it accepts to one server port, and
 * changes one byte of what the server sends (or, made by {@link #flippingWhatClientsSend}, of what
 * the client sends), {@code flipAt} bytes into each connection's stream (or none, with -1, to show
 * that the path itself works), by flipping the bits of {@code mask}; and drops the connections on
 * demand, as a network that breaks does.
 */
public final class TamperingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final long flipAt;
    private final byte mask;
    private final boolean clientBytes;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    public TamperingProxy(int target, long flipAt) throws IOException {
        this(target, flipAt, (byte) 0xFF);
    }

    TamperingProxy(int target, long flipAt, byte mask) throws IOException {
        this(target, flipAt, mask, false);
    }

    private TamperingProxy(int target, long flipAt, byte mask, boolean clientBytes) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = target;
        this.flipAt = flipAt;
        this.mask = mask;
        this.clientBytes = clientBytes;
        Thread.ofPlatform().daemon().name("tampering-proxy").start(this::accept);
    }

    /** A proxy that flips the byte {@code flipAt} bytes into what each client sends, handshakes included. */
    public static TamperingProxy flippingWhatClientsSend(int target, long flipAt) throws IOException {
        return new TamperingProxy(target, flipAt, (byte) 0xFF, true);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Drops every connection made so far; new ones are still forwarded. */
    public void cut() {
        for (Socket socket : sockets) {
            close(socket);
            sockets.remove(socket);
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.addAll(List.of(client, server));
                Thread.ofPlatform().daemon().start(() -> pump(client, server, clientBytes ? flipAt : -1, mask));
                Thread.ofPlatform().daemon().start(() -> pump(server, client, clientBytes ? -1 : flipAt, mask));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to, long flipAt, byte mask) {
        byte[] buffer = new byte[16 << 10];
        long passed = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; passed += n) {
                if (flipAt >= passed && flipAt < passed + n) {
                    buffer[(int) (flipAt - passed)] ^= mask;
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // One side went away; the other is closed with it below.
        } finally {
            close(from);
            close(to);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already gone.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(TamperingProxy::close);
    }
}

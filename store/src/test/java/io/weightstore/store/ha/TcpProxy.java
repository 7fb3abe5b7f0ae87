package io.weightstore.store.ha;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Forwards connections to a port on this host, and drops them all on demand, as a network that breaks does. */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    TcpProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("tcp-proxy").start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                try {
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                    open.add(upstream);
                    pipe(client, upstream);
                    pipe(upstream, client);
                } catch (IOException e) {
                    quietly(client);
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread.ofPlatform().daemon().name("tcp-proxy-pipe").start(() -> {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException e) {
                // cut, or one end went away: both ends go
            }
            quietly(from);
            quietly(to);
        });
    }

    /** Drops every connection made so far; new ones are still forwarded. */
    void cut() {
        for (Socket socket : open) {
            quietly(socket);
            open.remove(socket);
        }
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        cut();
    }
}

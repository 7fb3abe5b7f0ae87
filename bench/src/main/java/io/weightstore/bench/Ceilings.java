package io.weightstore.bench;

import io.weightstore.store.wire.TcpSockets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The limits of this machine, measured in the same run as the store: one-thread memory copy, and a
 * raw loopback socket that sends a file with sendfile into off-heap memory, as the data plane does
 * but with no protocol, no checksums and no store, under the TCP congestion control the data plane
 * uses by default (a ceiling under another algorithm than the store's would measure the kernel's
 * pacing, not the store).
 */
public final class Ceilings {
    private Ceilings() {}

    public static Measurement.Timed memcpy(Arena arena, long bytes) {
        MemorySegment from = arena.allocate(bytes, 64);
        MemorySegment to = arena.allocate(bytes, 64);
        from.fill((byte) 1);
        to.fill((byte) 0);
        return new Measurement.Timed("memcpy", "MemorySegment.copy, 1 thread", bytes, () -> MemorySegment.copy(from, 0, to, 0, bytes));
    }

    /**
     * A raw loopback socket ceiling: sendfile from {@code file} over {@code connections} sockets,
     * each carrying an equal share, into {@code dst}, which must not be larger than the file.
     * Close it to release the listening socket and its threads.
     */
    public static RawSocket rawSocket(Path file, MemorySegment dst, int connections) throws IOException {
        return new RawSocket(file, dst, connections);
    }

    public static final class RawSocket implements AutoCloseable {
        private final ServerSocketChannel server;
        private final FileChannel source;
        private final ExecutorService pool;
        private final MemorySegment dst;
        private final int connections;
        private final long share;
        private final String algorithm;

        private RawSocket(Path file, MemorySegment dst, int connections) throws IOException {
            this.dst = dst;
            this.connections = connections;
            // Equal shares, so any accepted connection carries exactly what any client expects.
            this.share = dst.byteSize() / connections;
            this.server = ServerSocketChannel.open();
            TcpSockets.setCongestionControl(server, CongestionTerms.store());
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            this.algorithm = TcpSockets.congestionControl(server);
            this.source = FileChannel.open(file, StandardOpenOption.READ);
            this.pool = Executors.newFixedThreadPool(2 * connections);
        }

        public Measurement.Timed timed() {
            return new Measurement.Timed("raw socket", "sendfile -> off-heap, " + connections + " conn, TCP " + algorithm,
                    share * connections, this::transfer);
        }

        private void transfer() throws Exception {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                long offset = c * share;
                running.add(pool.submit(() -> {
                    try (SocketChannel peer = server.accept()) {
                        for (long sent = 0; sent < share; ) {
                            long n = source.transferTo(offset + sent, share - sent, peer);
                            if (n <= 0) {
                                throw new IOException("file ends before offset " + (offset + share));
                            }
                            sent += n;
                        }
                    }
                    return null;
                }));
                running.add(pool.submit(() -> {
                    try (SocketChannel socket = SocketChannel.open()) {
                        TcpSockets.setCongestionControl(socket, CongestionTerms.store());
                        socket.connect(server.getLocalAddress());
                        receive(socket, dst.asSlice(offset, share));
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        }

        @Override
        public void close() throws IOException {
            pool.shutdownNow();
            try {
                server.close();
            } finally {
                source.close();
            }
        }
    }

    private static void receive(SocketChannel socket, MemorySegment dst) throws IOException {
        for (long done = 0; done < dst.byteSize(); ) {
            int chunk = (int) Math.min(1 << 30, dst.byteSize() - done);
            var buffer = dst.asSlice(done, chunk).asByteBuffer();
            while (buffer.hasRemaining()) {
                if (socket.read(buffer) < 0) {
                    throw new IOException("peer closed early");
                }
            }
            done += chunk;
        }
    }
}

package io.weightstore.bench;

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
 * but with no protocol, no checksums and no store.
 */
public final class Ceilings {
    private Ceilings() {}

    public static Measurement memcpy(Arena arena, long bytes, int runs) throws Exception {
        MemorySegment from = arena.allocate(bytes, 64);
        MemorySegment to = arena.allocate(bytes, 64);
        from.fill((byte) 1);
        to.fill((byte) 0);
        return Measurement.of("memcpy", "MemorySegment.copy, 1 thread", bytes, runs, () -> MemorySegment.copy(from, 0, to, 0, bytes));
    }

    /**
     * sendfile from {@code file} over {@code connections} loopback sockets, each carrying an equal share,
     * into {@code dst}, which must not be larger than the file.
     */
    public static Measurement rawSocket(Path file, MemorySegment dst, int connections, int runs) throws Exception {
        // Equal shares, so any accepted connection carries exactly what any client expects.
        long share = dst.byteSize() / connections;
        long bytes = share * connections;
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
            ExecutorService pool = Executors.newFixedThreadPool(2 * connections);
            try {
                return Measurement.of("raw socket", "sendfile -> off-heap, " + connections + " conn", bytes, runs, () -> {
                    List<Future<?>> running = new ArrayList<>();
                    for (int c = 0; c < connections; c++) {
                        long offset = c * share;
                        long length = share;
                        running.add(pool.submit(() -> {
                            try (SocketChannel peer = server.accept()) {
                                for (long sent = 0; sent < length; ) {
                                    long n = source.transferTo(offset + sent, length - sent, peer);
                                    if (n <= 0) {
                                        throw new IOException("file ends before offset " + (offset + length));
                                    }
                                    sent += n;
                                }
                            }
                            return null;
                        }));
                        running.add(pool.submit(() -> {
                            try (SocketChannel socket = SocketChannel.open(server.getLocalAddress())) {
                                receive(socket, dst.asSlice(offset, length));
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : running) {
                        f.get();
                    }
                });
            } finally {
                pool.shutdownNow();
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

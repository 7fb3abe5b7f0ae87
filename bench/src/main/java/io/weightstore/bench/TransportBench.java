package io.weightstore.bench;

import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.MacTransport;
import io.weightstore.store.wire.PlainTransport;
import io.weightstore.store.wire.TlsEndpoint;
import io.weightstore.store.wire.TlsTransport;
import io.weightstore.store.wire.Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The data plane's transports side by side on loopback: a file sent by each over several
 * connections at once, each carrying an equal share, into off-heap memory, as a node serves a
 * client from its pool, which it keeps mapped. Plain is the store's path today (sendfile, then
 * reads straight into the destination);
 * TLS runs with each TLS 1.3 cipher suite; the MAC transport tags every chunk and sends in clear.
 *
 * <p>Connections are opened (and handshakes timed) before the runs, as the data plane pools them;
 * the paths are timed in turns. Each side's threads also report their CPU time (user and system),
 * so the cost per byte shows on a machine whose other tenants make wall time noisy. On loopback
 * the kernel does part of the receiver's work in the sender's system calls, so the split between
 * the two sides is approximate; their sum is not.
 */
public final class TransportBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** A transport to measure: how each end opens a fresh socket. */
    private record Variant(String path, String detail, Opener server, Opener client) {}

    @FunctionalInterface
    private interface Opener {
        Transport open(SocketChannel socket) throws IOException;
    }

    /** One variant's figures: throughput, CPU nanoseconds per byte on each side (median of the runs), handshake time. */
    public record Row(Measurement throughput, double senderCpuNsPerByte, double receiverCpuNsPerByte, Duration handshake) {}

    public record Report(long bytes, int connections, int runs, List<Row> rows) {}

    private TransportBench() {}

    public static Report run(Path workDir, long bytes, int connections, int runs) throws Exception {
        if (bytes % connections != 0) {
            throw new IllegalArgumentException("size " + bytes + " does not split into " + connections + " equal shares");
        }
        Path dir = Files.createTempDirectory(workDir, "ws-transport-bench-");
        try (Arena arena = Arena.ofShared(); ExecutorService threads = Executors.newFixedThreadPool(2 * connections)) {
            Path source = dir.resolve("pool.bin");
            StoreReadBench.writeSource(source, bytes);
            MemorySegment dst = arena.allocate(bytes, 64);
            dst.fill((byte) 0);
            List<Variant> variants = variants(dir.resolve("pki"));
            List<Measurement.Timed> timed = new ArrayList<>();
            List<Run> running = new ArrayList<>();
            try (FileChannel file = FileChannel.open(source, StandardOpenOption.READ)) {
                MemorySegment pool = file.map(FileChannel.MapMode.READ_ONLY, 0, bytes, arena);
                try {
                    for (Variant variant : variants) {
                        Run run = Run.open(variant, connections, file, pool, dst, threads);
                        running.add(run);
                        timed.add(new Measurement.Timed(variant.path(), variant.detail() + ", " + connections + " conn", bytes,
                                run::transfer));
                    }
                    List<Measurement> measured = Measurement.interleaved(runs, timed);
                    List<Row> rows = new ArrayList<>();
                    for (int i = 0; i < variants.size(); i++) {
                        Run run = running.get(i);
                        rows.add(new Row(measured.get(i), median(run.senderCpu) / bytes, median(run.receiverCpu) / bytes,
                                run.handshake));
                    }
                    // A fast wrong answer is no result: each transport once more, untimed, into a cleared destination.
                    for (int i = 0; i < variants.size(); i++) {
                        dst.fill((byte) 0);
                        running.get(i).transfer();
                        verify(file, dst, variants.get(i));
                    }
                    return new Report(bytes, connections, runs, rows);
                } finally {
                    for (Run run : running) {
                        run.close();
                    }
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static List<Variant> variants(Path pkiDir) throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(pkiDir.resolve("ca"));
        ca.issue(Role.NODE, "bench-node", pkiDir.resolve("node"), Duration.ofDays(1), List.of("127.0.0.1"));
        ca.issue(Role.READER, "bench-reader", pkiDir.resolve("reader"), Duration.ofDays(1), List.of());
        Credentials node = Credentials.load(pkiDir.resolve("node"));
        Credentials reader = Credentials.load(pkiDir.resolve("reader"));
        TlsEndpoint server = TlsEndpoint.server(node, TlsEndpoint.ClientCertificates.REQUIRED);
        TlsEndpoint client = TlsEndpoint.client(reader, ExpectedPeer.exactly(node.identity()));
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("plain", "sendfile -> off-heap", PlainTransport::new, PlainTransport::new));
        for (String[] suite : new String[][] {{"TLS_AES_128_GCM_SHA256", "AES-128-GCM"}, {"TLS_AES_256_GCM_SHA384", "AES-256-GCM"},
                {"TLS_CHACHA20_POLY1305_SHA256", "ChaCha20-Poly1305"}}) {
            TlsEndpoint s = server.withCipherSuites(suite[0]);
            TlsEndpoint c = client.withCipherSuites(suite[0]);
            variants.add(new Variant("TLS 1.3", suite[1], socket -> TlsTransport.handshake(socket, s),
                    socket -> TlsTransport.handshake(socket, c)));
        }
        variants.add(new Variant("MAC", "mTLS handshake, " + MacTransport.tagsProposedHere() + " per 256 KiB, sendfile", socket -> mac(socket, server),
                socket -> mac(socket, client)));
        return variants;
    }

    private static Transport mac(SocketChannel socket, TlsEndpoint end) throws IOException {
        TlsTransport tls = TlsTransport.handshake(socket, end);
        try {
            return MacTransport.switchFrom(tls);
        } catch (IOException | RuntimeException e) {
            tls.close();
            throw e;
        }
    }

    /** One variant's open connections, and the CPU time each side spent per run. */
    private static final class Run implements AutoCloseable {
        private final List<Transport> senders = new ArrayList<>();
        private final List<Transport> receivers = new ArrayList<>();
        private final FileChannel file;
        private final MemorySegment pool;
        private final MemorySegment dst;
        private final ExecutorService threads;
        private final List<Long> senderCpu = new ArrayList<>();
        private final List<Long> receiverCpu = new ArrayList<>();
        private Duration handshake = Duration.ZERO;

        private Run(FileChannel file, MemorySegment pool, MemorySegment dst, ExecutorService threads) {
            this.file = file;
            this.pool = pool;
            this.dst = dst;
            this.threads = threads;
        }

        static Run open(Variant variant, int connections, FileChannel file, MemorySegment pool, MemorySegment dst,
                ExecutorService threads) throws Exception {
            Run run = new Run(file, pool, dst, threads);
            try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                long[] took = new long[connections];
                for (int c = 0; c < connections; c++) {
                    Future<Transport> accepted = threads.submit(() -> variant.server().open(listener.accept()));
                    long start = System.nanoTime();
                    run.receivers.add(variant.client().open(SocketChannel.open(listener.getLocalAddress())));
                    run.senders.add(accepted.get());
                    took[c] = System.nanoTime() - start;
                }
                Arrays.sort(took);
                run.handshake = Duration.ofNanos(took[connections / 2]);
            } catch (Exception e) {
                run.close();
                throw e;
            }
            return run;
        }

        /** Every connection sends its share of the file into its share of dst, all at once. */
        void transfer() throws Exception {
            long share = dst.byteSize() / senders.size();
            List<Future<Long>> sending = new ArrayList<>();
            List<Future<Long>> receiving = new ArrayList<>();
            for (int c = 0; c < senders.size(); c++) {
                Transport sender = senders.get(c);
                Transport receiver = receivers.get(c);
                long offset = c * share;
                sending.add(threads.submit(() -> cpu(() -> sender.sendFile(file, offset, pool.asSlice(offset, share)))));
                receiving.add(threads.submit(() -> cpu(() -> receive(receiver, dst.asSlice(offset, share)))));
            }
            senderCpu.add(sum(sending));
            receiverCpu.add(sum(receiving));
        }

        @Override
        public void close() {
            senders.forEach(Transport::close);
            receivers.forEach(Transport::close);
        }
    }

    @FunctionalInterface
    private interface Work {
        void run() throws IOException;
    }

    /** CPU nanoseconds (user and system) this thread spent on {@code work}. */
    private static long cpu(Work work) throws IOException {
        long start = THREADS.getCurrentThreadCpuTime();
        work.run();
        return THREADS.getCurrentThreadCpuTime() - start;
    }

    private static long sum(List<Future<Long>> futures) throws Exception {
        long total = 0;
        for (Future<Long> f : futures) {
            total += f.get();
        }
        return total;
    }

    /** Reads as the data plane's client does: as much as each read gives, straight into the destination. */
    private static void receive(Transport transport, MemorySegment into) throws IOException {
        for (long done = 0; done < into.byteSize(); ) {
            ByteBuffer buffer = into.asSlice(done, Math.min(1L << 30, into.byteSize() - done)).asByteBuffer();
            while (buffer.hasRemaining()) {
                if (transport.read(buffer) < 0) {
                    throw new IOException(transport.peer() + " ended the stream with " + buffer.remaining() + " bytes outstanding");
                }
            }
            done += buffer.capacity();
        }
    }

    /** The median of the timed runs' CPU times; the first entries are the warm-up runs'. */
    private static double median(List<Long> cpu) {
        return Measurement.median(cpu.subList(Measurement.WARM_UP_RUNS, cpu.size()).stream().mapToDouble(Long::doubleValue).toArray());
    }

    private static void verify(FileChannel file, MemorySegment dst, Variant variant) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            long mismatch = file.map(FileChannel.MapMode.READ_ONLY, 0, dst.byteSize(), arena).mismatch(dst);
            if (mismatch != -1) {
                throw new IllegalStateException(variant.path() + " (" + variant.detail() + ") delivered different bytes at offset "
                        + mismatch);
            }
        }
    }
}

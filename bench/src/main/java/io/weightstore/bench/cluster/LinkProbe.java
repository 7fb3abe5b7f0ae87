package io.weightstore.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A raw TCP sender and receiver to measure a link of the bed, and to probe whether a host answers.
 * Depends on nothing but the JDK, so it starts as a plain {@code java -cp CLASSES} process on a host.
 *
 * <pre>
 * serve ADDR PORT                       accept connections until killed. A connection's first byte picks:
 *                                       'S' sink: read to the end, then print one JSON line
 *                                       {bytes, seconds, bitsPerSecond, startEpochNanos, endEpochNanos},
 *                                       timed from the first payload byte to the last;
 *                                       'E' echo: send back every byte until the end;
 *                                       'R' source: read an 8-byte count, send that many bytes, close.
 * send ADDR PORT BYTES [WAIT_MS]        connect (retrying while refused, up to WAIT_MS, default 20000), send
 *                                       BYTES bytes to a sink, close.
 * fetch ADDR PORT BYTES [WAIT_MS]       connect as send does, ask a source for BYTES bytes, read them, print
 *                                       the same JSON line as a sink.
 * ping ADDR PORT TIMEOUT_MS             exit 0 if the echo server answers one byte within TIMEOUT_MS, else 1.
 * </pre>
 */
public final class LinkProbe {
    private static final int CHUNK = 1 << 20;

    private LinkProbe() {}

    /** The command line that runs this probe in a JVM of its own, from the class path this class came from. */
    public static List<String> command(String... args) {
        Path classes;
        try {
            classes = Path.of(LinkProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        // C1 only: the probe moves bytes through the kernel, and a short-lived JVM starts faster so.
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", classes.toString(), LinkProbe.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LinkProbe serve ADDR PORT | send|fetch ADDR PORT BYTES [WAIT_MS] | ping ADDR PORT TIMEOUT_MS | rtt ADDR PORT COUNT");
            System.exit(2);
        }
        String address = args[1];
        int port = Integer.parseInt(args[2]);
        switch (args[0]) {
            case "serve" -> serve(address, port);
            case "send" -> send(address, port, Long.parseLong(args[3]), args.length > 4 ? Integer.parseInt(args[4]) : 20_000);
            case "fetch" -> fetch(address, port, Long.parseLong(args[3]), args.length > 4 ? Integer.parseInt(args[4]) : 20_000);
            case "ping" -> System.exit(ping(address, port, Integer.parseInt(args[3])) ? 0 : 1);
            case "rtt" -> roundTrips(address, port, Integer.parseInt(args[3]));
            default -> {
                System.err.println("LinkProbe: unknown mode " + args[0]);
                System.exit(2);
            }
        }
    }

    private static void serve(String address, int port) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(address), port), 64);
            System.out.println("{\"listening\":\"" + address + ":" + port + "\"}");
            System.out.flush();
            while (true) {
                Socket socket = server.accept();
                Thread.ofPlatform().daemon().start(() -> handle(socket));
            }
        }
    }

    private static void handle(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            int mode = in.read();
            if (mode == 'E') {
                int b;
                while ((b = in.read()) >= 0) {
                    out.write(b);
                    out.flush();
                }
            } else if (mode == 'S') {
                drain(in);
            } else if (mode == 'R') {
                long bytes = new java.io.DataInputStream(in).readLong();
                write(out, bytes);
            }
        } catch (IOException e) {
            System.err.println("LinkProbe: " + e);
        }
    }

    /** Reads to the end and prints one report, timed from the first byte to the last. */
    private static void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[CHUNK];
        long bytes = 0;
        long start = 0;
        long startEpoch = 0;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            if (bytes == 0 && n > 0) {
                start = System.nanoTime();
                startEpoch = epochNanos();
            }
            bytes += n;
        }
        long end = System.nanoTime();
        double seconds = (end - start) / 1e9;
        synchronized (System.out) {
            System.out.printf(Locale.ROOT,
                    "{\"bytes\":%d,\"seconds\":%.6f,\"bitsPerSecond\":%.0f,\"startEpochNanos\":%d,\"endEpochNanos\":%d}%n",
                    bytes, seconds, seconds > 0 ? bytes * 8 / seconds : 0, startEpoch, startEpoch + (end - start));
            System.out.flush();
        }
    }

    private static void write(OutputStream out, long bytes) throws IOException {
        byte[] buffer = new byte[CHUNK];
        for (int i = 0; i < buffer.length; i++) {
            buffer[i] = (byte) (i * 31 + 7);
        }
        long left = bytes;
        while (left > 0) {
            int n = (int) Math.min(left, buffer.length);
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    private static void send(String address, int port, long bytes, int waitMillis) throws Exception {
        try (Socket socket = connect(address, port, waitMillis)) {
            OutputStream out = socket.getOutputStream();
            out.write('S');
            write(out, bytes);
            socket.shutdownOutput();
            // Wait for the sink to close: the bytes are then received, not only buffered.
            socket.getInputStream().read();
        }
    }

    private static void fetch(String address, int port, long bytes, int waitMillis) throws Exception {
        try (Socket socket = connect(address, port, waitMillis)) {
            java.io.DataOutputStream out = new java.io.DataOutputStream(socket.getOutputStream());
            out.write('R');
            out.writeLong(bytes);
            out.flush();
            drain(socket.getInputStream());
        }
    }

    /** Connects, retrying while the server is not listening yet (it may be a JVM still starting). */
    private static Socket connect(String address, int port, int waitMillis) throws Exception {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (true) {
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(address, port), waitMillis);
                return socket;
            } catch (java.net.ConnectException refused) {
                socket.close();
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                Thread.sleep(50);
            }
        }
    }

    private static boolean ping(String address, int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(new byte[] {'E', 1});
            return socket.getInputStream().read() == 1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Sends one byte at a time to an echo and waits for it, {@code count} times after a warm-up of
     * as many, and prints the median and least round trip: the delay the bed's links add, and the
     * time the hosts' kernels and the bridge take.
     */
    private static void roundTrips(String address, int port, int count) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 20_000);
            socket.setSoTimeout(20_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write('E');
            long[] nanos = new long[count];
            for (int i = -count; i < count; i++) {
                long start = System.nanoTime();
                out.write(1);
                if (in.read() != 1) {
                    throw new IOException("the echo at " + address + ":" + port + " did not answer");
                }
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - start;
                }
            }
            Arrays.sort(nanos);
            System.out.printf(Locale.ROOT, "{\"roundTrips\":%d,\"medianMicros\":%.1f,\"minMicros\":%.1f}%n", count,
                    nanos[count / 2] / 1e3, nanos[0] / 1e3);
        }
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}

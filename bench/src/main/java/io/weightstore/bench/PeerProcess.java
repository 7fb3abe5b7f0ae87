package io.weightstore.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A peer server (nginx, Redis) the bench starts on loopback, waits for, and stops. */
final class PeerProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final int port;

    private PeerProcess(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    static PeerProcess start(String name, List<String> command, int port, Path log) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PeerProcess peer = new PeerProcess(name, process, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited at start with " + process.exitValue() + ": " + Files.readString(log));
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return peer;
            } catch (IOException notYet) {
                sleep();
            }
        }
        peer.close();
        throw new IOException(name + " did not listen on 127.0.0.1:" + port + " within 15 s: " + Files.readString(log));
    }

    /** The path of an executable on PATH or in the usual system directories, or null. */
    static Path find(String executable) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin:/sbin";
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, executable);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    int port() {
        return port;
    }

    /** The process and its children (nginx's workers, say), whose CPU time the peer costs. */
    List<Long> pids() {
        return Stream.concat(Stream.of(process.toHandle()), process.descendants())
                .map(ProcessHandle::pid).toList();
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }

    @Override
    public String toString() {
        return name + "@127.0.0.1:" + port;
    }
}

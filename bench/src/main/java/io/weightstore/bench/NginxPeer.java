package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** nginx (as found on this machine) serving a directory on loopback with sendfile, started and stopped by the bench. */
final class NginxPeer implements AutoCloseable {
    private final PeerProcess process;

    private NginxPeer(PeerProcess process) {
        this.process = process;
    }

    /** Starts nginx serving {@code root}, its files under {@code work}; null when nginx is not installed. */
    static NginxPeer start(Path root, Path work) throws IOException {
        Path binary = PeerProcess.find("nginx");
        if (binary == null) {
            return null;
        }
        int port = PeerProcess.freePort();
        Path prefix = Files.createDirectories(work.resolve("nginx"));
        Path conf = NginxConfig.write(prefix, "127.0.0.1", port, root.toAbsolutePath(), 256);
        return new NginxPeer(PeerProcess.start("nginx", List.of(binary.toString(), "-p", prefix.toString(), "-c", conf.toString()),
                port, prefix.resolve("stdout.log")));
    }

    /** Where the served directory's files are: this, '/', and their relative path. */
    String baseUrl() {
        return "http://127.0.0.1:" + process.port();
    }

    /** nginx's processes: the master and its workers. */
    List<Long> pids() {
        return process.pids();
    }

    @Override
    public void close() {
        process.close();
    }
}

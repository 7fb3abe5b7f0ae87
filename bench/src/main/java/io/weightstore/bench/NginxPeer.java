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
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, """
                daemon off;
                worker_processes 2;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections 256; }
                http {
                    access_log off;
                    sendfile on;
                    tcp_nopush on;
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    server {
                        listen 127.0.0.1:%2$d;
                        root %3$s;
                    }
                }
                """.formatted(prefix, port, root.toAbsolutePath()));
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

package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one nginx configuration the benches serve files with: sendfile, no access log, every
 * temporary path under its prefix, so that it runs unprivileged, in the foreground, anywhere.
 */
public final class NginxConfig {
    private NginxConfig() {}

    /** Writes {@code prefix/nginx.conf} serving {@code root} on {@code address:port}, and returns its path. */
    public static Path write(Path prefix, String address, int port, Path root, int workerConnections) throws IOException {
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, """
                daemon off;
                worker_processes 2;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections %5$d; }
                http {
                    access_log off;
                    sendfile on;
                    tcp_nopush on;
                    # A client keeps its connections for a whole bench, warm-up GETs included, as the gateway lets it.
                    keepalive_requests 1000000;
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    server {
                        listen %2$s:%3$d;
                        root %4$s;
                    }
                }
                """.formatted(prefix, address, port, root, workerConnections));
        return conf;
    }
}

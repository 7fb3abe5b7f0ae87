package io.weightstore.cli.ops;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerResponse;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The operations port of a server (master, node, gateway): {@code GET /metrics} in Prometheus' text
 * format, {@code GET /health} (200 while the process runs) and {@code GET /ready} (200 or 503, with
 * the server's state), on Helidon's web server. It serves nothing else: no configuration, no
 * credentials, no object names beyond node ids. Separate from the server's own port so that it can
 * stay on loopback (or a cluster-internal address) while the service port faces clients.
 */
public final class OpsServer implements AutoCloseable {
    private final WebServer server;

    private OpsServer(WebServer server) {
        this.server = server;
    }

    /** Listens on {@code bind:port} (0 for a free port) and serves {@code registries} as one scrape. */
    public static OpsServer start(String bind, int port, List<PrometheusRegistry> registries, Supplier<Readiness> readiness) {
        PrometheusTextFormatWriter format = PrometheusTextFormatWriter.create();
        HttpRouting.Builder routing = HttpRouting.builder()
                .get("/health", (req, res) -> json(res, 200, "{\"status\":\"ok\"}"))
                .get("/ready", (req, res) -> {
                    Readiness now = readiness.get();
                    json(res, now.ready() ? 200 : 503, "{\"status\":\"" + (now.ready() ? "ready" : "not ready")
                            + "\",\"state\":\"" + escape(now.state()) + "\"}");
                })
                .get("/metrics", (req, res) -> {
                    res.header(HeaderNames.CONTENT_TYPE, format.getContentType());
                    res.send(scrape(format, registries));
                })
                .any((req, res) -> {
                    res.status(404);
                    res.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
                    res.send("this port serves GET /metrics, /health and /ready only\n");
                });
        requireFreePort(bind, port);
        WebServer server = WebServer.builder().host(bind).port(port).routing(routing).build().start();
        if (!server.isRunning()) {
            throw new UncheckedIOException(new BindException("cannot serve metrics on " + bind + ":" + port
                    + ": the web server did not start (its log says why)"));
        }
        return new OpsServer(server);
    }

    public int port() {
        return server.port();
    }

    private static byte[] scrape(PrometheusTextFormatWriter format, List<PrometheusRegistry> registries) {
        List<MetricSnapshot> all = new ArrayList<>();
        for (PrometheusRegistry registry : registries) {
            registry.scrape().forEach(all::add);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            format.write(out, new MetricSnapshots(all));
        } catch (IOException e) {
            throw new UncheckedIOException("writing metrics to memory", e);
        }
        return out.toByteArray();
    }

    private static void json(ServerResponse response, int status, String body) {
        response.status(status);
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send(body.getBytes(StandardCharsets.UTF_8));
    }

    /** States are our own sentences, but they may quote a master's error: quotes, new lines, control characters. */
    private static String escape(String text) {
        return new String(JsonStringEncoder.getInstance().quoteAsString(text));
    }

    /**
     * Fails with the address when the port is taken: Helidon only logs a failed bind, without the
     * port, and returns a server that is not running.
     */
    private static void requireFreePort(String bind, int port) {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(bind, port));
        } catch (IOException e) {
            throw new UncheckedIOException(new BindException("cannot serve metrics on " + bind + ":" + port + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}

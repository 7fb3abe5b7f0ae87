package io.weightstore.cli.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** The flags of a server's operations port, the same for master, node and gateway. */
public final class MetricsOptions {
    @Option(names = "--metrics-port", paramLabel = "N",
            description = "Serve GET /metrics (Prometheus), /health and /ready on this port (0 for any free one). Default: none.")
    Integer port;

    @Option(names = "--metrics-bind", defaultValue = "127.0.0.1", paramLabel = "HOST",
            description = "Address of the metrics port; loopback unless a scraper elsewhere needs it. Default: ${DEFAULT-VALUE}.")
    String bind;

    /** Checked with the other flags, before the server starts. */
    public void validate() {
        if (port != null && (port < 0 || port > 65_535)) {
            throw new IllegalArgumentException("--metrics-port must be in 0..65535, found " + port);
        }
    }

    /** The operations server when {@code --metrics-port} asks for one, else null (a resource try-with-resources skips). */
    public OpsServer start(List<PrometheusRegistry> registries, Supplier<Readiness> readiness) {
        return port == null ? null : OpsServer.start(bind, port, registries, readiness);
    }

    /** Says where the operations port listens, with the port it got when asked for any. */
    public void announce(PrintWriter out, OpsServer ops) {
        if (ops != null) {
            String host = bind.contains(":") ? "[" + bind + "]" : bind;
            out.printf("metrics on http://%s:%d/metrics (and /health, /ready)%n", host, ops.port());
        }
    }
}

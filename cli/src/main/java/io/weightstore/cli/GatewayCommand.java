package io.weightstore.cli;

import io.weightstore.cli.ops.MetricsOptions;
import io.weightstore.cli.ops.OpsServer;
import io.weightstore.cli.ops.Readiness;
import io.weightstore.gateway.Access;
import io.weightstore.gateway.GatewayConfig;
import io.weightstore.gateway.MasterProbe;
import io.weightstore.gateway.S3Gateway;
import io.weightstore.store.api.MasterSilence;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore gateway}: the store's READY checkpoints over a read-only S3 API. */
@Command(name = "gateway", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Serve the store's READY checkpoints over a read-only, S3-compatible HTTP API, for any S3 client or engine.",
            "",
            "One bucket; key <checkpoint-id>/<path> is that file of that checkpoint. GetObject and HeadObject (one Range), "
                    + "ListObjects v1 and v2, ListBuckets, GetBucketLocation. Requests are signed with AWS Signature V4, in the "
                    + "Authorization header or a presigned URL. The ETag is the file's SHA-256 from the manifest, quoted. Runs "
                    + "until stopped.",
            ""
        })
final class GatewayCommand implements Callable<Integer> {
    /** A key the gateway stats, at its start and then every second, to learn that the store answers it; it need not exist. */
    private static final String BUCKET_ROOT = "weights/";
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--port", defaultValue = "9000", paramLabel = "N", description = "HTTP port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", defaultValue = GatewayConfig.DEFAULT_HOST, paramLabel = "ADDR",
            description = "Address to listen on; 0.0.0.0 for every interface. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--bucket", defaultValue = GatewayConfig.DEFAULT_BUCKET, paramLabel = "NAME",
            description = "The bucket's name (S3's rules: 3-63 of a-z 0-9 . -). Default: ${DEFAULT-VALUE}.")
    private String bucket;

    @Option(names = "--access-key", paramLabel = "ID",
            description = "Access key id clients sign with. Also from $" + GatewayConfig.ACCESS_KEY_ENV + ".")
    private String accessKey;

    // No default here: picocli would print a default value in --help, and this one is a secret.
    @Option(names = "--secret-key", paramLabel = "SECRET",
            description = "Its secret key. Also from $" + GatewayConfig.SECRET_KEY_ENV + ", which, unlike a flag, other users cannot"
                    + " read in the process list. Never logged.")
    private String secretKey;

    @Option(names = "--anonymous",
            description = "Also serve unsigned requests: anyone who can reach the gateway reads every checkpoint. Without a key and"
                    + " without this flag the gateway does not start.")
    private boolean anonymous;

    @Option(names = "--max-concurrent", defaultValue = "" + GatewayConfig.DEFAULT_MAX_CONCURRENT, paramLabel = "N",
            description = "Object transfers at once, each with two chunk buffers, and bucket listings, each with its prefix's"
                    + " keys. Default: ${DEFAULT-VALUE}.")
    private int maxConcurrent;

    @Option(names = "--max-queue", defaultValue = "" + GatewayConfig.DEFAULT_MAX_WAITING, paramLabel = "N",
            description = "Transfers and listings that may wait, in arrival order, for one of those, each for at most"
                    + " --send-timeout; more, or one that waited that long, get 503 SlowDown, which S3 clients retry."
                    + " Default: ${DEFAULT-VALUE}.")
    private int maxQueue;

    @Option(names = "--chunk-size", converter = ByteSizeConverter.class,
            defaultValue = "" + (GatewayConfig.DEFAULT_CHUNK_BYTES >> 20) + "M", paramLabel = "SIZE",
            description = "Bytes read from the store and written to the client at a time; memory for transfers is at most"
                    + " --max-concurrent x 2 x this. Default: ${DEFAULT-VALUE}.")
    private long chunkSize;

    @Option(names = "--idle-timeout", defaultValue = "2m", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "A connection with no request in progress and no bytes moving for this long is closed; clients open a"
                    + " new one. Default: ${DEFAULT-VALUE}.")
    private Duration idleTimeout;

    @Option(names = "--send-timeout", defaultValue = "60s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "A response the client takes no byte of for this long ends the connection, so a stalled client holds a"
                    + " transfer slot and a read lease no longer; one that reads slowly but steadily gets all of it. Also the"
                    + " longest a transfer waits for a slot. Default: ${DEFAULT-VALUE}.")
    private Duration sendTimeout;

    @Option(names = "--max-connections", defaultValue = "" + GatewayConfig.DEFAULT_MAX_CONNECTIONS, paramLabel = "N",
            description = "Client connections open at once; more wait to be accepted until one closes. Default: ${DEFAULT-VALUE}.")
    private int maxConnections;

    @Mixin
    private TcpCongestionOption congestionControl;

    @Mixin
    private MetricsOptions metrics;

    @Mixin
    private ServerLogging logging;

    @Override
    public Integer call() throws Exception {
        metrics.validate();
        logging.enable();
        String id = accessKey != null ? accessKey : System.getenv(GatewayConfig.ACCESS_KEY_ENV);
        String secret = secretKey != null ? secretKey : System.getenv(GatewayConfig.SECRET_KEY_ENV);
        if (blank(id) != blank(secret)) {
            throw new IllegalArgumentException("an access key needs both its id and its secret: --access-key and --secret-key, or $"
                    + GatewayConfig.ACCESS_KEY_ENV + " and $" + GatewayConfig.SECRET_KEY_ENV);
        }
        Access access = Access.of(blank(id) ? Map.of() : Map.of(id, secret), anonymous);
        if (chunkSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--chunk-size " + ByteSizes.format(chunkSize) + " is too large; at most 256M");
        }
        GatewayConfig config = new GatewayConfig(bind, port, bucket, access, maxConcurrent, maxQueue, (int) chunkSize, idleTimeout,
                GatewayConfig.DEFAULT_REQUEST_HEAD_TIMEOUT, sendTimeout, maxConnections, congestionControl.algorithm);
        PrintWriter out = spec.commandLine().getOut();
        if (anonymous && !InetAddress.getByName(bind).isLoopbackAddress()) {
            out.printf("warning: --anonymous on %s: anyone who can reach it reads every checkpoint%n", bind);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (StoreClient store = selection.open();
                MasterProbe master = MasterProbe.start(store, BUCKET_ROOT, MasterSilence.DEFAULT_INTERVAL);
                S3Gateway gateway = S3Gateway.start(config, store);
                OpsServer ops = metrics.start(List.of(gateway.metrics().registry(), master.registry(), store.metrics().registry()),
                        () -> master.answering() ? Readiness.ready("serving bucket " + bucket + "; " + master.state())
                                : Readiness.notReady(master.state()))) {
            String url = "http://" + (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + gateway.port();
            out.printf("listening on %s: the READY checkpoints of the %s as bucket '%s' (%s, TCP %s)%n", url, selection.describe(),
                    bucket, blank(id) ? "unsigned requests only" : "signed with access key " + id + (anonymous ? ", or unsigned" : ""),
                    gateway.congestionControl());
            metrics.announce(out, ops);
            out.flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return ExitCodes.OK;
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}

package io.weightstore.cli;

import io.weightstore.cli.ops.MetricsOptions;
import io.weightstore.cli.ops.OpsServer;
import io.weightstore.cli.ops.Readiness;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Role;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.StoreLocator;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore node}: serves one memory pool to the cluster until stopped. */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a storage node: map a pool file and serve its bytes on the data plane.",
            "A pool on /dev/shm is memory; on a disk it survives reboots. Restarting on the same pool file keeps its data",
            "and its identity, and the node registers again.",
            "With --credentials (a node certificate, whose name becomes the node id) it talks TLS to the master and serves",
            "only callers with a ticket from it; it refuses to start without credentials unless --insecure is given."
        })
final class NodeCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(NodeCommand.class);

    @Spec
    private CommandSpec spec;

    @Option(names = "--master", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The master to register with, or every master of a group (the node follows its leader). Default:"
                    + " $WEIGHTSTORE_MASTER, else 'master' in the node section of the config file, else its client.store.")
    private String master;

    @Option(names = "--pool", required = true, paramLabel = "PATH", description = "Pool file (created when missing), e.g. /dev/shm/ws-pool.")
    private Path pool;

    @Option(names = "--capacity", converter = ByteSizeConverter.class, required = true, paramLabel = "SIZE",
            description = "Pool size, e.g. 16G. Fixed once the pool exists. A new pool larger than the free space of its file system"
                    + " (disk or tmpfs) is refused: the node would crash once writes filled it.")
    private long capacity;

    @Option(names = "--port", defaultValue = "7071", paramLabel = "N",
            description = "Data-plane port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", defaultValue = "0.0.0.0", paramLabel = "HOST", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--advertise", paramLabel = "HOST", description = "Host name clients use to reach this node. Default: this host's name.")
    private String advertise;

    @Option(names = "--max-connections", defaultValue = "" + NodeOptions.DEFAULT_MAX_CONNECTIONS, paramLabel = "N",
            description = "Data-plane connections served at once; more are told BUSY. Default: ${DEFAULT-VALUE}.")
    private int maxConnections;

    @Option(names = "--io-timeout", defaultValue = "5s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Deadline of a handshake, the base of each transfer's (which adds the bytes at 1 MB/s), and the longest "
                    + "a transfer may go without moving a byte. "
                    + "Default: ${DEFAULT-VALUE}.")
    private Duration ioTimeout;

    @Option(names = "--idle-timeout", defaultValue = "60s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Closes a connection that sends no request for this long. Default: ${DEFAULT-VALUE}.")
    private Duration idleTimeout;

    @Option(names = "--scrub-rate", converter = ByteSizeConverter.class, defaultValue = "16M", paramLabel = "SIZE",
            description = "Bytes per second the scrubber re-checks of this node's replicas against their checksums, in the"
                    + " background, telling the master of any bad copy so it is rewritten from a good one; 0 turns it off."
                    + " Default: ${DEFAULT-VALUE}.")
    private long scrubRate;

    @Option(names = "--check-trust", defaultValue = "10s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a checksum block this node found intact is served to reads of part of it without being"
                    + " hashed again (unless written since): tensor-parallel ranks each read a part of every block, within moments."
                    + " A block rotting in place is refused by the node at most this long after its last check; clients check"
                    + " whole blocks and the loader every tensor meanwhile. 0 hashes every block for every read."
                    + " Default: ${DEFAULT-VALUE}.")
    private Duration checkTrust;

    @Mixin
    private ServerCredentials security;

    @Option(names = "--data-plane", defaultValue = "tls", paramLabel = "tls|mac", converter = DataPlaneConverter.class,
            description = "With --credentials: tls encrypts every data-plane byte; mac authenticates every chunk but sends it in "
                    + "clear, which costs less CPU and keeps sendfile, for weights that are not secret (anyone on the path reads "
                    + "them, no one can change them unnoticed). Default: ${DEFAULT-VALUE}.")
    private DataPlaneProtection dataPlane;

    @Mixin
    private TcpCongestionOption congestionControl;

    @Mixin
    private MetricsOptions metrics;

    @Mixin
    private ServerLogging logging;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be in 0..65535, found " + port);
        }
        metrics.validate();
        String address = StoreLocator.clusterMaster(master).orElseThrow(() -> new IllegalArgumentException(
                "no master to register with: give --master HOST:PORT, or set $" + StoreLocator.MASTER_ENV));
        logging.enable();
        String host = advertise != null ? advertise : InetAddress.getLocalHost().getHostName();
        Authentication authentication = security.load(Role.NODE, "node", port, spec.commandLine().getErr(), logging.format)
                .<Authentication>map(Authentication.Certificate::new).orElseGet(Authentication::insecure);
        CountDownLatch stopped = new CountDownLatch(1);
        TransferDeadlines deadlines = new TransferDeadlines(ioTimeout, TransferDeadlines.defaults().minBytesPerSecond(), idleTimeout);
        NodeOptions options = new NodeOptions(pool, capacity, bind, port, host, authentication, deadlines,
                maxConnections, dataPlane, scrubRate, checkTrust, congestionControl.algorithm);
        try (StorageNode node = StorageNode.start(address, options);
                OpsServer ops = metrics.start(List.of(node.metrics().registry()), () -> node.isRegistered()
                        ? Readiness.ready("registered with " + address) : Readiness.notReady("not registered with " + address))) {
            PoolPages pages = PoolPages.of(pool);
            if (pages.smallTmpfsPages()) {
                log.warn("pool {} is on a tmpfs in 4 KiB pages, each a lookup for sendfile and for same-host readers;"
                        + " a tmpfs mounted with huge=within_size serves faster", pool);
            }
            spec.commandLine().getOut().printf("node %s serving %s (%s, %s) on %s:%d, master %s, %s, TCP %s%n", node.nodeId(), pool,
                    ByteSizes.format(node.capacity()), pages, host, node.port(), address, options.secure() ? dataPlane.name() : "INSECURE",
                    node.congestionControl());
            metrics.announce(spec.commandLine().getOut(), ops);
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return ExitCodes.OK;
    }
}

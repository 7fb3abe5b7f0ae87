package io.weightstore.cli;

import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.StoreLocator;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
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
            "and its identity, and the node registers again."
        })
final class NodeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--master", required = true, paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The master to register with, or every master of a group (the node follows its leader).")
    private String master;

    @Option(names = "--pool", required = true, paramLabel = "PATH", description = "Pool file (created when missing), e.g. /dev/shm/ws-pool.")
    private Path pool;

    @Option(names = "--capacity", required = true, paramLabel = "SIZE", description = "Pool size, e.g. 16G. Fixed once the pool exists.")
    private String capacity;

    @Option(names = "--port", defaultValue = "7071", description = "Data-plane port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", defaultValue = "0.0.0.0", paramLabel = "HOST", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--advertise", paramLabel = "HOST", description = "Host name clients use to reach this node. Default: this host's name.")
    private String advertise;

    @Override
    public Integer call() throws Exception {
        ServerLogging.enable();
        String host = advertise != null ? advertise : InetAddress.getLocalHost().getHostName();
        String token = System.getenv(StoreLocator.TOKEN_ENV);
        CountDownLatch stopped = new CountDownLatch(1);
        NodeOptions options = new NodeOptions(pool, ByteSizes.parse(capacity), bind, port, host, token);
        try (StorageNode node = StorageNode.start(master, options)) {
            spec.commandLine().getOut().printf("node %s serving %s (%s) on %s:%d, master %s%n", node.nodeId(), pool,
                    ByteSizes.format(node.capacity()), host, node.port(), master);
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return ExitCodes.OK;
    }
}

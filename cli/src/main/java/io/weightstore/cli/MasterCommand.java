package io.weightstore.cli;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.StoreLocator;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore master}: runs the metadata server until stopped. */
@Command(
        name = "master",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the master: node registry, object table, leases, locks and pins, over gRPC.",
            "Metadata lives in RocksDB under --data-dir; a master killed and restarted loses no sealed object.",
            "Clients and nodes present $WEIGHTSTORE_TOKEN when the master is started with one."
        })
final class MasterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--port", defaultValue = "7070", paramLabel = "N",
            description = "gRPC port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--data-dir", required = true, paramLabel = "DIR", description = "Directory for the master's metadata.")
    private Path dataDir;

    @Option(names = "--bind", defaultValue = "0.0.0.0", paramLabel = "HOST", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--slice-size", defaultValue = "64M", paramLabel = "SIZE",
            description = "Default slice size of new objects (a multiple of 1M). Default: ${DEFAULT-VALUE}.")
    private String sliceSize;

    @Override
    public Integer call() throws Exception {
        // Checked before the data directory is created or opened: a typo must leave nothing behind.
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be in 0..65535, found " + port);
        }
        ServerLogging.enable();
        MasterConfig config = MasterConfig.defaults().withSliceSize(ByteSizes.parse(sliceSize));
        try (MasterServer server = MasterServer.start(dataDir, config, bind, port, System.getenv(StoreLocator.TOKEN_ENV))) {
            spec.commandLine().getOut().printf("master listening on %s:%d, metadata in %s%n", bind, server.port(), dataDir);
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
            server.awaitTermination();
        }
        return ExitCodes.OK;
    }
}

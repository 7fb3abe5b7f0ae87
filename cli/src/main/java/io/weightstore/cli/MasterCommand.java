package io.weightstore.cli;

import io.weightstore.store.ha.GroupSettings;
import io.weightstore.store.ha.MasterGroup;
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

/** {@code weightstore master}: runs the metadata server, alone on RocksDB or as one of a group on etcd, until stopped. */
@Command(
        name = "master",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the master: node registry, object table, leases, locks and pins, over gRPC.",
            "Alone, metadata lives in RocksDB under --data-dir; a master killed and restarted loses no sealed object.",
            "With --etcd, this is one master of a group: the masters elect a leader through etcd, the metadata lives in etcd,",
            "and when the leader dies another takes over within a few seconds. Give clients and nodes every master",
            "(--store h1:7070,h2:7070,h3:7070): followers send them to the leader.",
            "Clients and nodes present $WEIGHTSTORE_TOKEN when the master is started with one."
        })
final class MasterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--port", defaultValue = "7070", description = "gRPC port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Directory for the metadata of a master that runs alone.")
    private Path dataDir;

    @Option(names = "--etcd", paramLabel = "URL[,URL...]",
            description = "etcd members (http://host:2379, or HOST:PORT) of a group of masters; instead of --data-dir.")
    private String etcd;

    @Option(names = "--cluster", paramLabel = "NAME", defaultValue = GroupSettings.DEFAULT_CLUSTER,
            description = "With --etcd: the group's name, its keys under /weightstore/NAME/ in etcd. Default: ${DEFAULT-VALUE}.")
    private String cluster;

    @Option(names = "--advertise", paramLabel = "HOST:PORT",
            description = "With --etcd: where clients reach this master, as followers name it. Default: this host's name and --port.")
    private String advertise;

    @Option(names = "--bind", defaultValue = "0.0.0.0", paramLabel = "HOST", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--slice-size", defaultValue = "64M", paramLabel = "SIZE",
            description = "Default slice size of new objects (a multiple of 1M). Default: ${DEFAULT-VALUE}.")
    private String sliceSize;

    @Override
    public Integer call() throws Exception {
        if ((dataDir == null) == (etcd == null)) {
            throw new IllegalArgumentException("give either --data-dir (a master alone) or --etcd (one master of a group), not "
                    + (dataDir == null ? "neither" : "both"));
        }
        ServerLogging.enable();
        MasterConfig config = MasterConfig.defaults().withSliceSize(ByteSizes.parse(sliceSize));
        String token = System.getenv(StoreLocator.TOKEN_ENV);
        if (etcd != null) {
            GroupSettings settings = GroupSettings.of(etcd, cluster);
            if (advertise != null) {
                settings = settings.withAdvertise(advertise);
            }
            try (MasterGroup group = MasterGroup.start(settings, config, bind, port, token)) {
                spec.commandLine().getOut().printf("master %s of cluster %s listening on %s:%d, metadata in etcd %s%n", group.address(),
                        cluster, bind, group.port(), etcd);
                spec.commandLine().getOut().flush();
                Runtime.getRuntime().addShutdownHook(new Thread(group::close));
                group.awaitTermination();
            }
            return ExitCodes.OK;
        }
        try (MasterServer server = MasterServer.start(dataDir, config, bind, port, token)) {
            spec.commandLine().getOut().printf("master listening on %s:%d, metadata in %s%n", bind, server.port(), dataDir);
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
            server.awaitTermination();
        }
        return ExitCodes.OK;
    }
}

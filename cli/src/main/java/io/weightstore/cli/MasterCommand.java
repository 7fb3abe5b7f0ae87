package io.weightstore.cli;

import io.weightstore.cli.ops.MetricsOptions;
import io.weightstore.cli.ops.OpsServer;
import io.weightstore.cli.ops.Readiness;
import io.weightstore.store.ha.GroupSettings;
import io.weightstore.store.ha.MasterGroup;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.master.ReplicationConfig;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TokenRegistry;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
            "With --credentials it speaks TLS only and admits callers by certificate (or by a token of --tokens) and role;",
            "it refuses to start without credentials unless --insecure is given."
        })
final class MasterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--port", defaultValue = "7070", paramLabel = "N",
            description = "gRPC port (0 for any free one). Default: ${DEFAULT-VALUE}.")
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

    @Option(names = "--slice-size", converter = ByteSizeConverter.class, defaultValue = "64M", paramLabel = "SIZE",
            description = "Default slice size of new objects (a multiple of 1M). Default: ${DEFAULT-VALUE}.")
    private long sliceSize;

    @Option(names = "--repair-after", defaultValue = "10m", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a node may stay DOWN before the master copies its replicas again onto other nodes, node to"
                    + " node (a node back within it keeps its copies and nothing is copied). Default: ${DEFAULT-VALUE}.")
    private Duration repairAfter;

    @Option(names = "--copy-rate", converter = ByteSizeConverter.class, defaultValue = "64M", paramLabel = "SIZE",
            description = "Bytes per second each node may spend copying replicas from other nodes (repairs, drains, replica"
                    + " counts raised), so loads keep their bandwidth. Default: ${DEFAULT-VALUE}.")
    private long copyRate;

    @Option(names = "--readers-per-replica", defaultValue = "2", paramLabel = "N",
            description = "For objects at '--replicas auto': read leases one copy may serve before the master adds another"
                    + " copy (within the nodes' room). Default: ${DEFAULT-VALUE}.")
    private int readersPerReplica;

    @Option(names = "--auto-cool-down", defaultValue = "5m", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "For objects at '--replicas auto': how long copies added for readers stay once the readers are gone."
                    + " Default: ${DEFAULT-VALUE}.")
    private Duration autoCoolDown;

    @Mixin
    private ServerCredentials security;

    @Option(names = "--tokens", paramLabel = "FILE",
            description = "Bearer tokens to accept, as 'weightstore cert token' records them (DIR/tokens): one 'name role "
                    + "sha256' per line. Default: none, certificates only.")
    private Path tokens;

    @Mixin
    private MetricsOptions metrics;

    @Mixin
    private ServerLogging logging;

    @Override
    public Integer call() throws Exception {
        // Checked before the data directory is created or opened: a typo must leave nothing behind.
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be in 0..65535, found " + port);
        }
        metrics.validate();
        if ((dataDir == null) == (etcd == null)) {
            throw new IllegalArgumentException("give either --data-dir (a master alone) or --etcd (one master of a group), not "
                    + (dataDir == null ? "neither" : "both"));
        }
        if (readersPerReplica < 1) {
            throw new IllegalArgumentException("--readers-per-replica must be >= 1, found " + readersPerReplica);
        }
        long copyBytesPerSecond = copyRate;
        if (copyBytesPerSecond < 1) {
            throw new IllegalArgumentException("--copy-rate must be at least 1 byte per second, found " + copyRate);
        }
        logging.enable();
        ReplicationConfig replication = ReplicationConfig.defaults().withRepairAfter(repairAfter)
                .withCopyBytesPerSecond(copyBytesPerSecond).withReadersPerReplica(readersPerReplica).withCoolDown(autoCoolDown);
        MasterConfig config = MasterConfig.defaults().withSliceSize(sliceSize).withReplication(replication);
        Optional<Credentials> credentials = security.load(Role.MASTER, "master", port, spec.commandLine().getErr(), logging.format);
        if (credentials.isEmpty() && tokens != null) {
            throw new IllegalArgumentException("--tokens needs --credentials: tokens are sent only inside TLS");
        }
        MasterSecurity mode = credentials.<MasterSecurity>map(c -> new MasterSecurity.Secure(c, TokenRegistry.none()))
                .orElseGet(MasterSecurity::insecure);
        if (tokens != null) {
            mode = new MasterSecurity.Secure(credentials.get(), TokenRegistry.load(tokens));
        }
        String how = credentials.map(c -> "TLS as " + c.identity()).orElse("INSECURE");
        if (etcd != null) {
            GroupSettings settings = GroupSettings.of(etcd, cluster);
            if (advertise != null) {
                settings = settings.withAdvertise(advertise);
            }
            try (MasterGroup group = MasterGroup.start(settings, config, bind, port, mode);
                    OpsServer ops = metrics.start(List.of(group.metrics().registry()),
                            () -> group.isLeading() ? Readiness.ready("leader") : Readiness.notReady("follower"))) {
                spec.commandLine().getOut().printf("master %s of cluster %s listening on %s:%d (%s), metadata in etcd %s%n",
                        group.address(), cluster, bind, group.port(), how, etcd);
                metrics.announce(spec.commandLine().getOut(), ops);
                spec.commandLine().getOut().flush();
                Runtime.getRuntime().addShutdownHook(new Thread(group::close));
                group.awaitTermination();
            }
            return ExitCodes.OK;
        }
        try (MasterServer server = MasterServer.start(dataDir, config, bind, port, mode);
                OpsServer ops = metrics.start(List.of(server.metrics().registry()), () -> Readiness.ready("serving"))) {
            spec.commandLine().getOut().printf("master listening on %s:%d (%s), metadata in %s%n", bind, server.port(), how, dataDir);
            metrics.announce(spec.commandLine().getOut(), ops);
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
            server.awaitTermination();
        }
        return ExitCodes.OK;
    }
}

package io.weightstore.cli;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The launchers' training run for the start-up cache of the commands that name a cluster. A cache
 * holds the classes its training run loaded, and the quickstart runs on the embedded store, so a
 * verb that talked to a cluster found gRPC, Netty and the master's client outside it; a cache that
 * holds both, though, makes every start load more. So a command that names a cluster gets a cache
 * of its own, trained by the quickstart on a master and a node this starts in its own process on
 * loopback, insecure, on ports of the kernel's choosing.
 */
@Command(
        name = "cluster-training",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = {
            "The launcher's training run for the start-up cache of the commands that name a cluster (not for users): the",
            "quickstart on a master and a node this process starts on loopback. Writes under $WEIGHTSTORE_HOME/cluster-training."
        })
final class ClusterTrainingCommand implements Callable<Integer> {
    /** Room for the quickstart's tiny checkpoint, several times over. */
    private static final long NODE_CAPACITY = 256L << 20;

    @Option(names = "--no-generate", description = "Pass --no-generate to the quickstart: no Jlama, as for every verb but"
            + " generate and serve.")
    private boolean noGenerate;

    @Override
    public Integer call() throws IOException {
        Path work = WeightstoreHome.created().resolve("cluster-training");
        try (MasterServer master = MasterServer.start(work.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0,
                MasterSecurity.insecure());
                StorageNode node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(work.resolve("pool"),
                        NODE_CAPACITY))) {
            String store = "127.0.0.1:" + master.port();
            List<String> quickstart = new ArrayList<>(List.of("quickstart", "--store", store, "--dir",
                    work.resolve("quickstart").toString()));
            if (noGenerate) {
                quickstart.add("--no-generate");
            }
            int done = WeightstoreCli.commandLine().execute(quickstart.toArray(String[]::new));
            return done != ExitCodes.OK ? done : WeightstoreCli.commandLine().execute("store", "status", "--store", store);
        }
    }
}

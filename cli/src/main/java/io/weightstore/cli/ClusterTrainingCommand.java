package io.weightstore.cli;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TokenRegistry;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
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
 * loopback, on ports of the kernel's choosing. They run secure, as a cluster does unless its
 * operator says otherwise: with a CA made for this run alone, mutual TLS to the master and TLS on
 * the data plane, so nothing serves an unauthenticated request for the run's few seconds, and the
 * cache holds the TLS classes a production client uses.
 */
@Command(
        name = "cluster-training",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = {
            "The launcher's training run for the start-up cache of the commands that name a cluster (not for users): the",
            "quickstart on a secure master and node this process starts on loopback. Writes under $WEIGHTSTORE_HOME/cluster-training,",
            "which it empties first."
        })
final class ClusterTrainingCommand implements Callable<Integer> {
    /** Room for the quickstart's tiny checkpoint, several times over. */
    private static final long NODE_CAPACITY = 256L << 20;

    /** Long enough for the run; the CA and every credential are made again by the next, and a credential ends before its CA. */
    private static final Duration CA_VALIDITY = Duration.ofDays(2);
    private static final Duration VALIDITY = Duration.ofDays(1);

    @Option(names = "--no-generate", description = "Pass --no-generate to the quickstart: no Jlama, as for every verb but"
            + " generate and serve.")
    private boolean noGenerate;

    @Override
    public Integer call() throws IOException {
        Path work = WeightstoreHome.created().resolve("cluster-training");
        // A CA refuses a directory that holds one, and a pool remembers the node it served.
        Directories.deleteRecursively(work);
        CertificateAuthority ca = CertificateAuthority.init(work.resolve("ca"), CA_VALIDITY);
        Path client = issue(ca, Role.ADMIN, "training");
        MasterSecurity masterSecurity = new MasterSecurity.Secure(Credentials.load(issue(ca, Role.MASTER, "master")),
                TokenRegistry.none());
        NodeOptions nodeOptions = NodeOptions.loopback(work.resolve("pool"), NODE_CAPACITY)
                .withAuthentication(new Authentication.Certificate(Credentials.load(issue(ca, Role.NODE, "node-1"))));
        try (MasterServer master = MasterServer.start(work.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, masterSecurity);
                StorageNode node = StorageNode.start("127.0.0.1:" + master.port(), nodeOptions)) {
            String store = "127.0.0.1:" + master.port();
            List<String> quickstart = new ArrayList<>(List.of("quickstart", "--store", store, "--credentials", client.toString(),
                    "--dir", work.resolve("quickstart").toString()));
            if (noGenerate) {
                quickstart.add("--no-generate");
            }
            int done = WeightstoreCli.commandLine().execute(quickstart.toArray(String[]::new));
            return done != ExitCodes.OK ? done
                    : WeightstoreCli.commandLine().execute("store", "status", "--store", store, "--credentials", client.toString());
        }
    }

    private static Path issue(CertificateAuthority ca, Role role, String name) throws IOException {
        Path credentials = ca.dir().resolve(name);
        ca.issue(role, name, credentials, VALIDITY, List.of("127.0.0.1"));
        return credentials;
    }
}

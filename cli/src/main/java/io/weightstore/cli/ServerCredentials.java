package io.weightstore.cli;

import io.weightstore.cli.logging.LogFormat;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Role;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Spec;

/**
 * How a networked server (master, node) proves itself and checks its callers: a credentials
 * directory, or, only when asked for in so many words, nothing at all. Neither given is an error,
 * so a server is never open by accident.
 */
final class ServerCredentials {
    private static final Logger log = LoggerFactory.getLogger(ServerCredentials.class);

    @Option(names = "--credentials", paramLabel = "DIR",
            description = "This server's credentials (ca.crt, identity.crt, identity.key from weightstore cert issue). "
                    + "Default: $WEIGHTSTORE_CREDENTIALS, else 'credentials' in the verb's section of the config file.")
    Path credentials;

    @Option(names = "--insecure",
            description = "Run without TLS and without authentication: anyone who reaches the port may read, overwrite and "
                    + "delete everything. For a trusted test network only.")
    boolean insecure;

    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    /**
     * The credentials of {@code role} to serve with, or empty when the operator asked for {@code --insecure}, which
     * is warned of on {@code err}, or in the log when its lines are JSON.
     */
    Optional<Credentials> load(Role role, String server, int port, PrintWriter err, LogFormat logFormat) throws StoreException {
        Path dir = credentials;
        if (insecure) {
            // Only a flag contradicts: credentials from the environment or a file are a default that --insecure overrides.
            if (mixee.commandLine().getParseResult().hasMatchedOption("--credentials")) {
                throw new IllegalArgumentException("--insecure and --credentials contradict each other; give one");
            }
            if (logFormat == LogFormat.JSON) {
                // One event a log shipper parses, where the block below would be four lines of text among the JSON.
                log.warn("{} running INSECURE on port {}: no TLS, no authentication; anyone who can reach this port can read,"
                        + " overwrite and delete every checkpoint; issue credentials with 'weightstore cert init' and 'weightstore cert"
                        + " issue' instead", server, port);
            } else {
                err.printf("%n  WARNING: %s running INSECURE on port %d: no TLS, no authentication.%n"
                        + "  Anyone who can reach this port can read, overwrite and delete every checkpoint.%n"
                        + "  Issue credentials with 'weightstore cert init' and 'weightstore cert issue' instead.%n%n", server, port);
                err.flush();
            }
            return Optional.empty();
        }
        if (dir == null) {
            throw new IllegalArgumentException("a " + server + " needs credentials: --credentials DIR (or $"
                    + Credentials.ENVIRONMENT + ") from 'weightstore cert issue --role " + role.label() + "', or --insecure to "
                    + "run open to anyone on the network");
        }
        Credentials loaded = Credentials.load(dir);
        if (loaded.identity().role() != role) {
            throw new IllegalArgumentException("credentials " + dir + " are for " + loaded.identity() + "; a " + server
                    + " needs a " + role.label() + " certificate");
        }
        return Optional.of(loaded);
    }
}

package io.weightstore.cli;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Role;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore cert token}: a bearer token bound to a role, for clients without a certificate. */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Issue a bearer token for one client identity, the alternative to a certificate for readers, writers and admins.",
            "Writes the token to OUT/token (0600) with ca.crt, so OUT is a credentials directory for --credentials; the token "
                    + "is never printed. Its SHA-256 goes into DIR/tokens, the file masters read with --tokens (restart the "
                    + "master to take new tokens). A token is sent only inside TLS."
        })
final class CertTokenCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "The CA's directory, as 'cert init' made it.")
    private Path dir;

    @Option(names = "--role", required = true, paramLabel = "ROLE", description = "What the token is for: reader, writer or admin.")
    private String role;

    @Option(names = "--name", required = true, paramLabel = "NAME",
            description = "The identity's name (a user or service): [A-Za-z0-9][A-Za-z0-9._-]{0,127}.")
    private String name;

    @Option(names = "--out", paramLabel = "OUT", description = "Directory for the token. Default: DIR/NAME.")
    private Path out;

    @Option(names = "--force", description = "Replace the token NAME already has (the old one stops working).")
    private boolean force;

    @Override
    public Integer call() throws Exception {
        Identity identity = new Identity(name, Role.parse(role));
        if (!identity.role().takesTokens()) {
            throw new IllegalArgumentException("role=" + role + ": nodes and masters prove themselves with certificates (weightstore"
                    + " cert issue); tokens are for reader, writer and admin clients");
        }
        Path target = out != null ? out : dir.resolve(identity.name());
        CertificateAuthority ca = CertificateAuthority.open(dir);
        try {
            ca.issueToken(identity.role(), identity.name(), target, force);
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.ALREADY_EXISTS) {
                throw new StoreException(e.code(), e.getMessage() + " (--force replaces it)", e);
            }
            throw e;
        }
        PrintWriter print = spec.commandLine().getOut();
        print.printf("issued a token for %s in %s (%s 0600, %s)%n", identity, target, Authentication.TOKEN_FILE,
                Credentials.CA_CERT_FILE);
        print.printf("its hash is in %s; start masters with --tokens %s%n", dir.resolve(CertificateAuthority.TOKENS_FILE),
                dir.resolve(CertificateAuthority.TOKENS_FILE));
        return ExitCodes.OK;
    }
}

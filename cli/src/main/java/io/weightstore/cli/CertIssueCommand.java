package io.weightstore.cli;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.CertificateFiles;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Role;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore cert issue}: a key and certificate for one identity. */
@Command(
        name = "issue",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Issue credentials for one identity: a new key and a certificate signed by the CA in DIR.",
            "Writes ca.crt, identity.crt and identity.key (0600) into OUT (0700 when created); copy OUT to the machine "
                    + "that uses it. The key is never printed.",
            "Roles: reader (stat, list, read, lease); writer (reader's, and put, pin, lock, delete); admin (writer's, "
                    + "and forced delete, node management); node (register, heartbeat); master (read, replicate, "
                    + "reclaim, master sync)."
        })
final class CertIssueCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "The CA's directory, as 'cert init' made it.")
    private Path dir;

    @Option(names = "--role", required = true, paramLabel = "ROLE",
            description = "What the identity is for: master, node, writer, reader or admin.")
    private String role;

    @Option(names = "--name", required = true, paramLabel = "NAME",
            description = "The identity's name (a node's id, a user or service): [A-Za-z0-9][A-Za-z0-9._-]{0,127}.")
    private String name;

    @Option(names = "--out", paramLabel = "OUT", description = "Directory for the credentials. Default: DIR/NAME.")
    private Path out;

    @Option(names = "--validity-days", defaultValue = "365", paramLabel = "N",
            description = "Days the certificate is valid; it must end before the CA does. Default: ${DEFAULT-VALUE}.")
    private int validityDays;

    @Option(names = "--host", paramLabel = "H",
            description = "A host name or IP address to add as a SAN, for tools that check host names (repeatable).")
    private List<String> hosts = List.of();

    @Option(names = "--force", description = "Replace credentials already in OUT.")
    private boolean force;

    @Override
    public Integer call() throws Exception {
        // Usage errors first, and the name before it becomes part of a path.
        Identity identity = new Identity(name, Role.parse(role));
        Duration validity = CertOptions.days("validity-days", validityDays);
        Path target = out != null ? out : dir.resolve(identity.name());
        CertificateAuthority ca = CertificateAuthority.open(dir);
        X509Certificate issued;
        try {
            issued = ca.issue(identity.role(), identity.name(), target, validity, hosts, force);
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.ALREADY_EXISTS) {
                throw new StoreException(e.code(), e.getMessage() + " (--force replaces them)", e);
            }
            throw e;
        }
        PrintWriter print = spec.commandLine().getOut();
        print.printf("issued %s in %s, valid until %s%n", identity, target, issued.getNotAfter().toInstant());
        print.printf("  %s, %s, %s (0600)%n", Credentials.CA_CERT_FILE, Credentials.CERT_FILE, Credentials.KEY_FILE);
        print.printf("sha256 %s%n", CertificateFiles.fingerprint(issued));
        return ExitCodes.OK;
    }
}

package io.weightstore.cli;

import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.CertificateFiles;
import io.weightstore.store.security.IdentityCertificates;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore cert init}: a new cluster CA. */
@Command(
        name = "init",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Create the cluster's certificate authority: DIR/ca.crt and DIR/ca.key (0600, DIR 0700 when created).",
            "Refuses a DIR that already holds a CA, since a new one would orphan every credential the old one issued.",
            "Keep ca.key on this machine: only ca.crt travels, inside the directories that 'cert issue' writes."
        })
final class CertInitCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory for the CA's files.")
    private Path dir;

    @Option(names = "--validity-days", defaultValue = "3650", paramLabel = "N",
            description = "Days the CA certificate is valid; every certificate it issues must end before it does. Default: ${DEFAULT-VALUE}.")
    private int validityDays;

    @Override
    public Integer call() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(dir, CertOptions.days("validity-days", validityDays));
        PrintWriter out = spec.commandLine().getOut();
        out.printf("created CA %s in %s, valid until %s%n", IdentityCertificates.subjectOf(ca.certificate()), dir,
                ca.certificate().getNotAfter().toInstant());
        out.printf("  %s  the certificate every member of the cluster trusts%n", CertificateAuthority.CERT_FILE);
        out.printf("  %s  its private key (0600): keep it on this machine%n", CertificateAuthority.KEY_FILE);
        out.printf("sha256 %s%n", CertificateFiles.fingerprint(ca.certificate()));
        out.printf("next: weightstore cert issue --dir %s --role node --name node-1%n", dir);
        return ExitCodes.OK;
    }
}

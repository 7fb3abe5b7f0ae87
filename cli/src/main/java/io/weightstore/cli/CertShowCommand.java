package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.CertificateFiles;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.IdentityCertificates;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore cert show}: what a certificate says, and whether it is valid now. */
@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = {
            "Show a certificate: subject, identity (role and name), issuer, validity, hosts and SHA-256 fingerprint.",
            "PATH is a certificate file, a credentials directory (its identity.crt) or a CA directory (its ca.crt).",
            "Keys are never read: a key file is refused."
        })
final class CertShowCommand implements Callable<Integer> {
    /** The SAN types X.509 numbers {@code dNSName} and {@code iPAddress}. */
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "Certificate file, credentials directory or CA directory.")
    private Path path;

    @Option(names = "--json", description = "Print the certificate's fields as JSON.")
    private boolean json;

    /** The JSON shape; role and name are null for a certificate that carries no identity, such as the CA's. */
    record CertificateView(String path, String subject, String role, String name, String identityProblem,
            String issuer, String serial, String notBefore, String notAfter, String status, boolean ca,
            List<String> hosts, String sha256) {}

    @Override
    public Integer call() throws Exception {
        Path file = certificateFile(path);
        X509Certificate certificate = CertificateFiles.read(file);
        CertificateView view = view(file, certificate);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, view);
            return ExitCodes.OK;
        }
        out.printf("path:      %s%n", view.path());
        out.printf("subject:   %s%n", view.subject());
        out.printf("identity:  %s%n", view.role() != null ? view.role() + " " + view.name()
                : "none (" + (view.ca() ? "a CA certificate" : view.identityProblem()) + ")");
        out.printf("issuer:    %s%n", view.issuer());
        out.printf("validity:  %s to %s (%s)%n", view.notBefore(), view.notAfter(), view.status());
        out.printf("hosts:     %s%n", view.hosts().isEmpty() ? "-" : String.join(", ", view.hosts()));
        out.printf("serial:    %s%n", view.serial());
        out.printf("sha256:    %s%n", view.sha256());
        out.flush();
        return ExitCodes.OK;
    }

    /** A directory means its identity certificate, or its CA certificate when it is a CA directory. */
    private static Path certificateFile(Path path) {
        if (!Files.isDirectory(path)) {
            return path;
        }
        Path identity = path.resolve(Credentials.CERT_FILE);
        return Files.exists(identity) ? identity : path.resolve(CertificateAuthority.CERT_FILE);
    }

    private static CertificateView view(Path file, X509Certificate certificate) throws CertificateException {
        Identity identity = null;
        String problem = null;
        try {
            identity = IdentityCertificates.identityOf(certificate);
        } catch (CertificateException e) {
            problem = e.getMessage();
        }
        Instant notBefore = certificate.getNotBefore().toInstant();
        Instant notAfter = certificate.getNotAfter().toInstant();
        Instant now = Instant.now();
        String status = now.isAfter(notAfter) ? "EXPIRED" : now.isBefore(notBefore) ? "NOT YET VALID" : "valid now";
        return new CertificateView(file.toString(), IdentityCertificates.subjectOf(certificate),
                identity == null ? null : identity.role().label(), identity == null ? null : identity.name(), problem,
                IdentityCertificates.issuerOf(certificate), certificate.getSerialNumber().toString(16), notBefore.toString(),
                notAfter.toString(), status, certificate.getBasicConstraints() >= 0, hosts(certificate),
                CertificateFiles.fingerprint(certificate));
    }

    /** The DNS and IP SANs; the role URI is shown as the identity instead. */
    private static List<String> hosts(X509Certificate certificate) throws CertificateException {
        Collection<List<?>> names = certificate.getSubjectAlternativeNames();
        List<String> hosts = new ArrayList<>();
        if (names != null) {
            for (List<?> name : names) {
                if (name.get(0) instanceof Integer type && (type == SAN_DNS || type == SAN_IP)) {
                    hosts.add(String.valueOf(name.get(1)));
                }
            }
        }
        return hosts;
    }
}

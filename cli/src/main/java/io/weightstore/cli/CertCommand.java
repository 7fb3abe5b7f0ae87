package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the verbs that make and read the cluster's certificates. */
@Command(
        name = "cert",
        mixinStandardHelpOptions = true,
        description = "Cluster credentials: create the CA, issue certificates and tokens, show a certificate.",
        subcommands = {CertInitCommand.class, CertIssueCommand.class, CertTokenCommand.class, CertShowCommand.class})
final class CertCommand {}

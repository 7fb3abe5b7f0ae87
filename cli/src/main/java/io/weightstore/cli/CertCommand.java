package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the verbs that make and read the cluster's certificates. */
@Command(
        name = "cert",
        mixinStandardHelpOptions = true,
        description = "Cluster certificates: create the CA, issue credentials, show a certificate.",
        subcommands = {CertInitCommand.class, CertIssueCommand.class, CertShowCommand.class})
final class CertCommand {}

package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the admin verbs on the master's nodes. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = "Manage the nodes the master knows (admin): forget a node that is gone for good.",
        subcommands = {StoreNodeForgetCommand.class})
final class StoreNodeCommand {}

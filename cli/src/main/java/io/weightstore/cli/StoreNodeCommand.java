package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the admin verbs on the master's nodes. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = "Manage the nodes the master knows (admin): drain a node's replicas onto the others, forget a node that is gone for good.",
        subcommands = {StoreNodeDrainCommand.class, StoreNodeForgetCommand.class})
final class StoreNodeCommand {}

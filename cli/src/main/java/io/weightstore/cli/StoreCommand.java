package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the operator verbs on raw store objects. */
@Command(
        name = "store",
        mixinStandardHelpOptions = true,
        description = "Operate the store: status of nodes, raw objects (ls, put, get, rm), and nodes (node drain, node forget).",
        subcommands = {StoreStatusCommand.class, StoreLsCommand.class, StorePutCommand.class, StoreGetCommand.class,
            StoreRmCommand.class, StoreNodeCommand.class})
final class StoreCommand {}

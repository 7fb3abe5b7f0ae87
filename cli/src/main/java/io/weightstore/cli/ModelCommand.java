package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the catalog verbs: checkpoints as whole units in the store. */
@Command(name = "model", mixinStandardHelpOptions = true,
        description = "Manage checkpoints in the store: import, list, inspect, verify, replicate, delete, prune, export.",
        subcommands = {ModelImportCommand.class, ModelListCommand.class, ModelInspectCommand.class, ModelVerifyCommand.class,
            ModelReplicateCommand.class,
            ModelDeleteCommand.class, ModelPruneCommand.class, ModelExportCommand.class})
final class ModelCommand {}

package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointRemover;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model delete}: a checkpoint and all its files. */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {
            "Delete a checkpoint: its files, their tensor CRC tables and its manifest, in one removal on the master (on a",
            "master group, in parts of 128 objects, the manifest last). Refused while readers hold leases unless --force; a",
            "delete that stopped half-way finishes when run again."
        })
final class ModelDeleteCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--force", description = "Remove files even while readers hold leases on them.")
    private boolean force;

    @Option(names = "--json", description = "Print what was deleted as JSON.")
    private boolean json;

    /** What {@code --json} prints. */
    record Deleted(String checkpointId, int files) {}

    @Override
    public Integer call() throws Exception {
        int removed;
        // Refused before the store opens: on a fresh machine that would create an embedded store for nothing.
        CheckpointId checkpoint = CheckpointId.of(id);
        try (StoreClient store = selection.open()) {
            removed = new CheckpointRemover(new Catalog(store)).run(checkpoint, force);
        }
        if (json) {
            JsonOutput.print(spec.commandLine().getOut(), new Deleted(id, removed));
        } else {
            spec.commandLine().getOut().printf("deleted %s: %d files and the manifest%n", id, removed);
        }
        return ExitCodes.OK;
    }
}

package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointPruner;
import io.weightstore.weights.ListedCheckpoint;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model prune}: the files of a checkpoint's earlier versions that a replace had to leave. */
@Command(name = "prune", mixinStandardHelpOptions = true,
        description = {
            "Remove the files (and tensor CRC tables) of a READY checkpoint's earlier versions that its manifest no longer",
            "names. A replace removes them as it finishes, but leaves those a reader of the version before still reads;",
            "'model list' shows how many are left. Refused while readers hold leases on them unless --force."
        })
final class ModelPruneCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--force", description = "Remove the files even while readers hold leases on them.")
    private boolean force;

    @Option(names = "--json", description = "Print what was removed as JSON: objects and bytes.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        ListedCheckpoint.Leftovers removed;
        // Refused before the store opens: on a fresh machine that would create an embedded store for nothing.
        CheckpointId checkpoint = CheckpointId.of(id);
        try (StoreClient store = selection.open()) {
            removed = new CheckpointPruner(new Catalog(store)).run(checkpoint, force);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, removed);
        } else if (removed.objects() == 0) {
            out.printf("pruned %s: nothing of earlier versions was left%n", id);
        } else {
            out.printf("pruned %s: %d objects of earlier versions (%s)%n", id, removed.objects(), ByteSizes.format(removed.bytes()));
        }
        return ExitCodes.OK;
    }
}

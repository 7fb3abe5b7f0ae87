package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.ListedCheckpoint;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore model list}: every checkpoint in the store. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {
            "List the checkpoints in the store, with who imported each (as the master recorded it) and CHECK:",
            "for a READY checkpoint, whether the store's metadata still matches its manifest: every file present,",
            "of the size, writer and block checksums the import recorded. 'CHANGED (n)' lists the n problems",
            "under the table (a file replaced since the import, say); 'unchecked (schema 1)' for a manifest that",
            "records none of it. Metadata only: 'model verify' reads the bytes."
        })
final class ModelListCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--json", description = {"Print the manifests as JSON, each with 'checked' and 'problems'; a manifest that",
        "cannot be read is shown by what the master says of it and 'manifestUnreadable', the reason."})
    private boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient store = selection.open()) {
            List<ListedCheckpoint> checkpoints = new Catalog(store).list();
            if (json) {
                JsonOutput.print(out, checkpoints);
                return ExitCodes.OK;
            }
            Reports.checkpoints(checkpoints, out);
        }
        return ExitCodes.OK;
    }
}

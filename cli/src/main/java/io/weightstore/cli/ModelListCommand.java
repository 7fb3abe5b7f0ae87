package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.Manifest;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore model list}: every checkpoint in the store. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List the checkpoints in the store.")
final class ModelListCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--json", description = "Print the manifests as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient store = selection.open()) {
            List<Manifest> manifests = new Catalog(store).list();
            if (json) {
                JsonOutput.print(out, manifests);
                return ExitCodes.OK;
            }
            Reports.checkpoints(manifests, out);
        }
        return ExitCodes.OK;
    }
}

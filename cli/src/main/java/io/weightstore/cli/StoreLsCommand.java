package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store ls}: sealed objects under a prefix. */
@Command(name = "ls", mixinStandardHelpOptions = true, description = {"List sealed objects whose key starts with PREFIX, in key order,",
            "with the identity that wrote each (as the master authenticated it; - on a store without identities)."})
final class StoreLsCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "PREFIX", arity = "0..1", defaultValue = "", description = "Key prefix; empty or left out lists everything.")
    private String prefix;

    @Option(names = "--json", description = "Print the objects as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient client = selection.open()) {
            List<ObjectMeta> objects = client.list(prefix);
            if (json) {
                JsonOutput.print(out, objects.stream().map(ObjectView::of).toList());
                return ExitCodes.OK;
            }
            Table table = new Table("KEY", "SIZE", "REPLICAS", "SLICES", "PINNED", "CREATED", "OWNER")
                    .alignRight("SIZE", "REPLICAS", "SLICES");
            for (ObjectMeta object : objects) {
                table.row(object.key(), ByteSizes.format(object.size()), object.replicas(), object.slices().size(),
                        object.pinned() ? "yes" : "no", object.createdAt(), object.owner().isEmpty() ? "-" : object.owner());
            }
            table.print(out);
        }
        return ExitCodes.OK;
    }
}

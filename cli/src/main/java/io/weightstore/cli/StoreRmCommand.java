package io.weightstore.cli;

import io.weightstore.store.client.StoreClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store rm}: removes one object. */
@Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove an object; refused while readers hold leases unless --force.")
final class StoreRmCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "KEY", description = "Object key.")
    private String key;

    @Option(names = "--force", description = "Remove even while readers hold leases on it.")
    private boolean force;

    @Override
    public Integer call() throws Exception {
        try (StoreClient client = selection.open()) {
            client.remove(key, force);
        }
        spec.commandLine().getOut().printf("removed %s%n", key);
        return ExitCodes.OK;
    }
}

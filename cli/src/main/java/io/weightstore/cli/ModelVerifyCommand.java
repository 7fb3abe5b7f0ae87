package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointVerifier;
import io.weightstore.weights.FileVerdict;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model verify}: stored bytes against the manifest. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {
            "Re-read every file and check its SHA-256 against the manifest; report OK, CORRUPT or MISSING per file.",
            "Exits with 1 if any file is not OK."
        })
final class ModelVerifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--quick", description = "Only check sizes, that every slice has a replica on a node that is up, and that headers parse.")
    private boolean quick;

    @Option(names = "--json", description = "Print the verdicts as JSON.")
    private boolean json;

    record Report(String checkpointId, boolean quick, boolean ok, List<FileVerdict> files) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<FileVerdict> verdicts;
        try (StoreClient store = selection.open()) {
            Catalog catalog = new Catalog(store);
            CheckpointId checkpoint = CheckpointId.of(id);
            long total = quick ? 0 : catalog.existingManifest(checkpoint).totalBytes();
            try (ProgressBar bar = new ProgressBar("verify " + id, total)) {
                verdicts = new CheckpointVerifier(catalog).run(checkpoint, quick, bar);
            }
        }
        boolean ok = verdicts.stream().allMatch(v -> v.status() == FileVerdict.Status.OK);
        if (json) {
            JsonOutput.print(out, new Report(id, quick, ok, verdicts));
        } else {
            Reports.verdicts(verdicts, out);
            long bad = verdicts.stream().filter(v -> v.status() != FileVerdict.Status.OK).count();
            out.printf("%s: %s (%d of %d files not OK, %s check)%n", id, ok ? "OK" : "BAD", bad, verdicts.size(),
                    quick ? "quick" : "full");
        }
        return ok ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}

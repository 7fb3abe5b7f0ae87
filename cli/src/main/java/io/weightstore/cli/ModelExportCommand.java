package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointExporter;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.ManifestFile;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model export}: stored files back to plain local files. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {
            "Write a READY checkpoint back to plain local files.",
            "The whole checkpoint into --output DIR, which must be new or empty, or with --path one file to --output FILE.",
            "Each file is checked against the manifest's SHA-256 before it appears.",
            "While a whole export runs, DIR holds " + CheckpointExporter.EXPORTING + ", and another export into DIR is refused."
        })
final class ModelExportCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--path", paramLabel = "FILE", description = "Export only this file of the checkpoint (its relative path).")
    private String path;

    @Option(names = "--output", required = true, paramLabel = "OUT",
            description = "Output directory (new or empty), or output file with --path (not a directory).")
    private Path output;

    @Option(names = "--json", description = "Print the files written, each with its size and SHA-256, as JSON.")
    private boolean json;

    /** What {@code --json} prints: each file is the manifest's entry it was checked against. */
    record Exported(String checkpointId, String output, long bytes, List<ManifestFile> files) {}

    @Override
    public Integer call() throws Exception {
        List<ManifestFile> files;
        // Refused before the store opens: on a fresh machine that would create an embedded store for nothing.
        CheckpointId checkpoint = CheckpointId.of(id);
        try (StoreClient store = selection.open()) {
            CheckpointExporter exporter = new CheckpointExporter(new Catalog(store));
            try (ProgressBar bar = new ProgressBar("export " + id)) {
                files = path == null ? exporter.exportAll(checkpoint, output, bar)
                        : List.of(exporter.exportOne(checkpoint, path, output, bar));
            }
        }
        long bytes = files.stream().mapToLong(ManifestFile::size).sum();
        if (json) {
            JsonOutput.print(spec.commandLine().getOut(), new Exported(id, output.toString(), bytes, files));
        } else {
            spec.commandLine().getOut().printf("exported %d file(s) of %s, %s, to %s (SHA-256 checked)%n", files.size(), id,
                    ByteSizes.format(bytes), output);
        }
        return ExitCodes.OK;
    }
}

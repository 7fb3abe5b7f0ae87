package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.RepairOutcome;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointVerifier;
import io.weightstore.weights.FileVerdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model verify}: every copy of every stored byte against the manifest. */
@Command(name = "verify", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Check every copy of every slice of the checkpoint's manifest and files, and",
            "each file's bytes against the manifest's SHA-256. Per file:",
            "  OK        matches, and every copy of every slice is good;",
            "  DEGRADED  a copy is bad or missing, but the data is still whole;",
            "  CORRUPT   some slice has no good copy, or the bytes, size or header",
            "            differ from the manifest;",
            "  MISSING   the object is gone, or some slice has no copy within reach.",
            "Exits with 1 unless everything is OK."
        })
final class ModelVerifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--quick",
            description = "Read no data: check sizes, that every copy is on a node that is up, and that safetensors headers parse.")
    private boolean quick;

    @Option(names = "--repair",
            description = "After the full check, rewrite every bad or missing copy from a good one (a copy is committed only once it"
                    + " is written and checked; the checkpoint stays readable), then check again. Exits with 0 when everything"
                    + " ended OK.")
    private boolean repair;

    @Option(names = "--json", description = "Print the verdicts, and any repairs, as JSON.")
    private boolean json;

    /** The JSON shape. */
    record Report(String checkpointId, String mode, FileVerdict.Status status, boolean ok, FileVerdict manifest,
            List<FileVerdict> files) {}

    @Override
    public Integer call() throws Exception {
        if (quick && repair) {
            throw new IllegalArgumentException("--repair needs the full check, which reads every copy; drop --quick");
        }
        CheckpointVerifier.Mode mode = repair ? CheckpointVerifier.Mode.REPAIR
                : quick ? CheckpointVerifier.Mode.QUICK : CheckpointVerifier.Mode.FULL;
        CheckpointVerifier.Report report;
        // Refused before the store opens: on a fresh machine that would create an embedded store for nothing.
        CheckpointId checkpoint = CheckpointId.of(id);
        try (StoreClient store = selection.open()) {
            Catalog catalog = new Catalog(store);
            long total = quick ? 0 : totalBytes(catalog, checkpoint);
            try (ProgressBar bar = new ProgressBar("verify " + id, total)) {
                report = new CheckpointVerifier(catalog).run(checkpoint, mode, bar);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new Report(id, mode.name().toLowerCase(Locale.ROOT), report.status(), report.ok(), report.manifest(),
                    report.files()));
        } else {
            Reports.verdicts(report, out);
            out.println(summary(report));
        }
        return report.ok() ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    /**
     * What the full check will read, for its progress bar; 0 (a bar without a total) when no copy of
     * the manifest can be read, which the check then reports copy by copy.
     */
    private static long totalBytes(Catalog catalog, CheckpointId checkpoint) throws IOException {
        try {
            return catalog.existingManifest(checkpoint).totalBytes();
        } catch (StoreException e) {
            if (e.noCopyServed()) {
                return 0;
            }
            throw e;
        }
    }

    private String summary(CheckpointVerifier.Report report) {
        long bad = report.files().stream().filter(v -> v.status() != FileVerdict.Status.OK).count();
        List<RepairOutcome> repairs = report.repairs();
        long failed = repairs.stream().filter(r -> !r.repaired()).count();
        String check = switch (report.mode()) {
            case QUICK -> "quick check";
            case FULL -> "full check";
            case REPAIR -> "full check and repair, " + (repairs.size() - failed) + (repairs.size() - failed == 1 ? " copy" : " copies")
                    + " repaired"
                    + (failed > 0 ? ", " + failed + " not" : "");
        };
        if (report.files().isEmpty() && report.manifest().status() != FileVerdict.Status.OK) {
            return String.format(Locale.ROOT, "%s: %s (no copy of the manifest could be read, so no file could be named; %s)", id,
                    report.status(), check);
        }
        return String.format(Locale.ROOT, "%s: %s (%d of %d files not OK%s, %s)", id, report.status(), bad, report.files().size(),
                report.manifest().status() == FileVerdict.Status.OK ? "" : ", manifest " + report.manifest().status(), check);
    }
}

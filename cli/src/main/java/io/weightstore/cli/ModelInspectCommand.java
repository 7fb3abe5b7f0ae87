package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointInspector;
import io.weightstore.weights.ColumnLayout;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ReplicaHealth;
import java.io.PrintWriter;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model inspect}: a checkpoint's manifest and where its files are. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Show a checkpoint's manifest and, per file: size, kind, tensors, dtypes,",
            "slices, replica count (+auto when the master may add copies for readers),",
            "whether its copies are OK, DEGRADED (slices lacking copies on up nodes,",
            "nothing under way) or REPAIRING (the master copying them, with",
            "progress), and its nodes' state."})
final class ModelInspectCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--json", description = "Print the report as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        // Refused before the store opens: on a fresh machine that would create an embedded store for nothing.
        CheckpointId checkpoint = CheckpointId.of(id);
        try (StoreClient store = selection.open()) {
            CheckpointInspector.Report report = new CheckpointInspector(new Catalog(store)).run(checkpoint);
            if (json) {
                JsonOutput.print(out, report);
                return ExitCodes.OK;
            }
            Manifest m = report.manifest();
            out.printf("checkpoint %s: %s@%s, %s, %d files, %s%n", m.checkpointId(), m.modelId(), m.revision(), m.status(),
                    m.files().size(), ByteSizes.format(m.totalBytes()));
            out.printf("  source %s%n  created %s, updated %s%n", m.source(), m.createdAt(), m.updatedAt());
            if (!m.excluded().isEmpty()) {
                out.printf("  left out of the source: %s%n", String.join(" ", m.excluded()));
            }
            m.files().stream().flatMap(f -> f.columnLayouts().stream())
                    .collect(Collectors.groupingBy(ColumnLayout::worldSize, TreeMap::new, Collectors.toList()))
                    .forEach((worldSize, layouts) -> out.printf("  column layout for %d ranks: %d files, %s%n", worldSize,
                            layouts.size(), ByteSizes.format(layouts.stream().mapToLong(ColumnLayout::size).sum())));
            if (m.error() != null) {
                out.printf("  error: %s%n", m.error());
            }
            out.printf("  copies: %s%n", copiesLine(report));
            Table table = new Table("FILE", "KIND", "SIZE", "TENSORS", "DTYPES", "SLICES", "REPLICAS", "COPIES", "NODES")
                    .alignRight("SIZE", "TENSORS", "SLICES", "REPLICAS");
            for (CheckpointInspector.FileDetail f : report.files()) {
                table.row(f.path(), f.kind(), ByteSizes.format(f.size()), f.tensorCount() == null ? "-" : f.tensorCount(),
                        f.dtypes().isEmpty() ? "-" : String.join(",", f.dtypes()), f.stored() ? f.slices() : "MISSING",
                        f.replicas() + (f.autoReplicas() ? "+auto" : ""), f.copies() == null ? "-" : copies(f.copies()),
                        f.nodes().stream().map(h -> h.nodeId() + (h.up() ? "" : "(DOWN)")).collect(Collectors.joining(",")));
            }
            table.print(out);
        }
        return ExitCodes.OK;
    }

    /** A file's copies in a cell: the state, and for copies under way how far they got. */
    private static String copies(ReplicaHealth health) {
        return switch (health.state()) {
            case OK -> "OK";
            case DEGRADED -> "DEGRADED " + health.slicesBelowTarget() + "/" + health.slices();
            case UNREADABLE -> "UNREADABLE " + health.slicesUnreadable() + "/" + health.slices();
            case REPAIRING -> "REPAIRING " + (health.bytesToCopy() == 0 ? 0 : 100 * health.bytesCopied() / health.bytesToCopy()) + "%";
        };
    }

    /** The copies' state, after the files not stored at all (an import under way or cut short), which have no copies to count. */
    private static String copiesLine(CheckpointInspector.Report report) {
        long missing = report.files().stream().filter(f -> !f.stored()).count();
        if (missing == 0) {
            return report.copies().describe();
        }
        return missing + " of " + report.files().size() + " files not stored (MISSING below)"
                + (missing == report.files().size() ? "" : "; of the stored ones: " + report.copies().describe());
    }
}

package io.weightstore.cli;

import io.weightstore.cli.output.Table;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.CheckpointVerifier;
import io.weightstore.weights.FileVerdict;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.loader.LoadReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The tables more than one verb prints (quickstart prints what list, verify and load print). */
final class Reports {
    private Reports() {}

    static void checkpoints(List<Manifest> manifests, PrintWriter out) {
        Table table = new Table("ID", "MODEL", "REVISION", "STATUS", "FILES", "SIZE", "CREATED").alignRight("FILES", "SIZE");
        for (Manifest m : manifests) {
            table.row(m.checkpointId(), m.modelId(), m.revision(), m.status(), m.files().size(), ByteSizes.format(m.totalBytes()),
                    m.createdAt());
        }
        table.print(out);
    }

    /** The manifest's and each file's verdict, then every repair made, one per line. */
    static void verdicts(CheckpointVerifier.Report report, PrintWriter out) {
        Table table = new Table("FILE", "STATUS", "DETAIL");
        table.row(report.manifest().path(), report.manifest().status(), report.manifest().detail());
        report.files().forEach(v -> table.row(v.path(), v.status(), v.detail()));
        table.print(out);
        List<FileVerdict> repaired = new ArrayList<>(List.of(report.manifest()));
        repaired.addAll(report.files());
        for (FileVerdict file : repaired) {
            file.repairs().forEach(r -> out.printf("repair %s: %s%n", file.path(), r.describe()));
        }
        out.flush();
    }

    static void loads(List<LoadReport> reports, PrintWriter out) {
        Table table = new Table("RANK", "TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S")
                .alignRight("TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S");
        for (LoadReport r : reports) {
            table.row(r.rank() + "/" + r.worldSize(), r.tensors(), ByteSizes.format(r.bytesRead()), ByteSizes.format(r.shareBytes()),
                    ByteSizes.format(r.checkpointBytes()), String.format(Locale.ROOT, "%.3f", r.amplification()),
                    String.format(Locale.ROOT, "%.1f%%", 100 * r.fractionOfCheckpoint()),
                    String.format(Locale.ROOT, "%.2f", r.seconds()), String.format(Locale.ROOT, "%.2f", r.gbPerSecond()));
        }
        table.print(out);
    }
}

package io.weightstore.cli;

import io.weightstore.cli.output.Table;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.CheckpointVerifier;
import io.weightstore.weights.FileVerdict;
import io.weightstore.weights.ListedCheckpoint;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.loader.LoadReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The tables more than one verb prints (quickstart prints what list, verify and load print). */
final class Reports {
    private Reports() {}

    /**
     * Checkpoints with who imported each and what the store's metadata says against its manifest; each
     * problem is printed under the table, naming the checkpoint.
     */
    static void checkpoints(List<ListedCheckpoint> checkpoints, PrintWriter out) {
        Table table = new Table("ID", "MODEL", "REVISION", "STATUS", "FILES", "SIZE", "CREATED", "IMPORTED BY", "CHECK")
                .alignRight("FILES", "SIZE");
        for (ListedCheckpoint c : checkpoints) {
            Manifest m = c.manifest();
            if (m == null) {
                // What only the manifest could say is left blank or "-", not made up: it cannot be read.
                ListedCheckpoint.Unreadable u = c.unreadable();
                table.row(u.checkpointId(), "", "", u.status(), "-", "-", u.createdAt(), importedBy(u.importedBy()), check(c));
                continue;
            }
            table.row(m.checkpointId(), m.modelId(), m.revision(), m.status(), m.files().size(), ByteSizes.format(m.totalBytes()),
                    m.createdAt(), importedBy(m.importedBy()), check(c));
        }
        table.print(out);
        for (ListedCheckpoint c : checkpoints) {
            c.problems().forEach(problem -> out.println(c.checkpointId() + ": " + problem));
            if (c.replacement() != null) {
                out.println(c.checkpointId() + ": " + replacement(c.replacement()));
            }
            if (c.leftovers() != null) {
                out.println(c.checkpointId() + ": " + c.leftovers().objects() + " objects (" + ByteSizes.format(
                        c.leftovers().bytes()) + ") of earlier versions are left, which a reader held as a replace finished;"
                        + " 'model prune " + c.checkpointId() + "' removes them");
            }
        }
    }

    private static String importedBy(String identity) {
        return identity == null ? "-" : identity.isEmpty() ? "(no identities)" : identity;
    }

    private static String replacement(ListedCheckpoint.Replacement r) {
        String what = "a replace by revision " + r.revision() + " (version " + r.version() + ") ";
        return r.status() == CheckpointStatus.FAILED
                ? what + "FAILED at " + r.updatedAt() + " (" + r.error() + "); loaders read the version above; run the import"
                        + " with --replace again to finish it"
                : what + "is " + r.status() + ", last written at " + r.updatedAt() + "; loaders read the version above until it is READY";
    }

    private static String check(ListedCheckpoint checkpoint) {
        if (checkpoint.manifest() == null) {
            return "UNREADABLE"; // nothing changed that a manifest recorded: there is none to read
        }
        if (!checkpoint.problems().isEmpty()) {
            return "CHANGED (" + checkpoint.problems().size() + ")";
        }
        if (checkpoint.status() != CheckpointStatus.READY) {
            return "-";
        }
        return checkpoint.checked() ? "ok" : "unchecked (schema 1)";
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
        Table table = new Table("RANK", "TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S",
                "CLIENT-CHECKED", "NODE-CHECKED", "IN PLACE", "FROM LAYOUT")
                .alignRight("TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S", "CLIENT-CHECKED",
                        "NODE-CHECKED", "IN PLACE", "FROM LAYOUT");
        for (LoadReport r : reports) {
            table.row(r.rank() + "/" + r.worldSize(), r.tensors(), ByteSizes.format(r.bytesRead()), ByteSizes.format(r.shareBytes()),
                    ByteSizes.format(r.checkpointBytes()), String.format(Locale.ROOT, "%.3f", r.amplification()),
                    String.format(Locale.ROOT, "%.1f%%", 100 * r.fractionOfCheckpoint()),
                    String.format(Locale.ROOT, "%.2f", r.seconds()), String.format(Locale.ROOT, "%.2f", r.gbPerSecond()),
                    r.clientChecked(), r.nodeChecked(), r.seenInPlace(), r.fromColumnLayouts());
        }
        table.print(out);
        for (LoadReport r : reports) {
            if (r.verified() != null) {
                out.printf(Locale.ROOT, "verified %d files%s (%s) against the manifest's SHA-256 in %.2f s (%.2f GB/s), before the load%n",
                        r.verified().files(), r.verified().columnLayouts() == 0 ? "" : " and " + r.verified().columnLayouts()
                                + " column layouts", ByteSizes.format(r.verified().bytes()), r.verified().seconds(),
                        r.verified().gbPerSecond());
            }
        }
    }
}

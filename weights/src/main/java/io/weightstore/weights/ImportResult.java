package io.weightstore.weights;

import java.util.List;

/**
 * The outcome of an import.
 *
 * @param skippedFiles files already stored with the same size and hash by an interrupted import, not sent again
 * @param uploadedBytes bytes sent: of the files sent, and of the column layouts written
 * @param excludedFiles the source's files its exclude patterns left out, not stored
 */
public record ImportResult(Manifest manifest, int uploadedFiles, int skippedFiles, long uploadedBytes, List<String> excludedFiles,
        double seconds) {
    public ImportResult {
        excludedFiles = List.copyOf(excludedFiles);
    }

    /** This outcome, its import having taken {@code total} seconds in all. */
    ImportResult took(double total) {
        return new ImportResult(manifest, uploadedFiles, skippedFiles, uploadedBytes, excludedFiles, total);
    }
}

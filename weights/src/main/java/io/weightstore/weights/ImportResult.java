package io.weightstore.weights;

/**
 * The outcome of an import.
 *
 * @param skippedFiles files already stored with the same size and hash by an interrupted import, not sent again
 */
public record ImportResult(Manifest manifest, int uploadedFiles, int skippedFiles, long uploadedBytes, double seconds) {}

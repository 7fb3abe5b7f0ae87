package io.weightstore.weights;

/** The state of one stored file against its manifest entry. */
public record FileVerdict(String path, Status status, String detail) {
    /** OK: matches; CORRUPT: bytes, size or header differ; MISSING: object or every replica of a slice is gone. */
    public enum Status {
        OK,
        CORRUPT,
        MISSING
    }
}

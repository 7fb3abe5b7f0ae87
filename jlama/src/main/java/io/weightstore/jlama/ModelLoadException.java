package io.weightstore.jlama;

/**
 * A model that cannot be loaded from its files: names the model as it was asked for (a directory or
 * {@code weightstore://ID}), the file at fault when that is known, and the reason in words.
 */
public final class ModelLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ModelLoadException(String reference, String fileAtFault, String reason, Throwable cause) {
        super("model " + reference + " cannot be loaded: " + (fileAtFault == null ? "" : fileAtFault + ": ") + reason, cause);
    }
}

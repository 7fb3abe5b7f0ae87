package io.weightstore.format;

import java.io.IOException;
import java.util.Locale;
import java.util.Optional;

/**
 * A safetensors file or checkpoint directory breaks a rule of the format. The message names the
 * tensor (when there is one), the rule and the expected and found values.
 */
public final class SafetensorsFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The rules a file or directory can break; tests and callers match on these, not on messages. */
    public enum Rule {
        HEADER_LENGTH,
        HEADER_ENCODING,
        HEADER_JSON,
        DUPLICATE_KEY,
        METADATA,
        TENSOR_ENTRY,
        DTYPE,
        SHAPE,
        DATA_OFFSETS,
        OVERLAP,
        HOLE,
        FILE_LENGTH,
        INDEX,
        CONFIG,
        DIRECTORY
    }

    private final Rule rule;
    private final String tensor;

    public SafetensorsFormatException(Rule rule, String tensor, String detail) {
        this(rule, tensor, describe(rule, tensor, detail), null);
    }

    private SafetensorsFormatException(Rule rule, String tensor, String message, Throwable cause) {
        super(message, cause);
        this.rule = rule;
        this.tensor = tensor;
    }

    public SafetensorsFormatException(Rule rule, String detail) {
        this(rule, null, detail);
    }

    /** The same violation, its message prefixed with the file it was found in. */
    public SafetensorsFormatException inFile(String path) {
        return new SafetensorsFormatException(rule, tensor, path + ": " + getMessage(), this);
    }

    public Rule rule() {
        return rule;
    }

    public Optional<String> tensor() {
        return Optional.ofNullable(tensor);
    }

    private static String describe(Rule rule, String tensor, String detail) {
        String where = tensor == null ? "" : "tensor '" + tensor + "': ";
        return where + detail + " [" + rule.name().toLowerCase(Locale.ROOT) + "]";
    }
}

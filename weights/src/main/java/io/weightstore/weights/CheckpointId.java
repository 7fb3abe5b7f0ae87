package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.regex.Pattern;

/** A checkpoint id: {@code [A-Za-z0-9][A-Za-z0-9._-]{0,254}}, safe as one key segment and as a directory name. */
public record CheckpointId(String value) {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

    public CheckpointId {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException("checkpoint id '" + value + "' must match [A-Za-z0-9][A-Za-z0-9._-]{0,254}");
        }
    }

    /** The id, or a {@link CheckpointException} INVALID naming what is wrong with it. */
    @JsonCreator
    public static CheckpointId of(String value) throws CheckpointException {
        try {
            return new CheckpointId(value);
        } catch (IllegalArgumentException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, e.getMessage(), e);
        }
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public String toString() {
        return value;
    }
}

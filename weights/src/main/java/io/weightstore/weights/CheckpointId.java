package io.weightstore.weights;

import java.util.regex.Pattern;

/** Checkpoint ids: {@code [A-Za-z0-9][A-Za-z0-9._-]{0,254}}, safe as one key segment and as a directory name. */
public final class CheckpointId {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

    private CheckpointId() {}

    public static String validate(String id) throws CheckpointException {
        if (id == null || !VALID.matcher(id).matches()) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "checkpoint id '" + id
                    + "' must match [A-Za-z0-9][A-Za-z0-9._-]{0,254}");
        }
        return id;
    }
}

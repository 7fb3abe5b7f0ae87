package io.weightstore.gateway.s3;

import io.weightstore.store.api.Range;
import java.util.Optional;

/**
 * GetObject's and HeadObject's {@code partNumber}. Every file here is stored as one part, and S3
 * serves part 1 of such an object as the whole of it, in a 206 with its {@code Content-Range}
 * (clients that fetch "part by part" after a HEAD rely on it); any other part is unsatisfiable.
 */
public final class PartNumber {
    public static final String PARAMETER = "partNumber";
    /** The highest part number S3 accepts. */
    static final int MAX = 10_000;

    private PartNumber() {}

    /**
     * The range part {@code value} stands for in an object of {@code size} bytes; empty for an empty
     * object, served whole.
     *
     * @throws S3Error InvalidArgument when it is not a part number, InvalidRequest beside a {@code Range}
     *     header, InvalidPartNumber for any part past the first
     */
    public static Optional<Range> range(String value, String rangeHeader, long size) {
        int part = parse(value);
        if (rangeHeader != null) {
            throw new S3Error(ErrorCode.INVALID_REQUEST, "Cannot specify both Range header and partNumber query parameter");
        }
        if (part != 1) {
            throw new S3Error(ErrorCode.INVALID_PART_NUMBER, "The requested partnumber is not satisfiable: the object is stored"
                    + " as one part").with("PartNumberRequested", Integer.toString(part)).with("ActualPartCount", "1");
        }
        return size == 0 ? Optional.empty() : Optional.of(new Range(0, size));
    }

    private static int parse(String value) {
        try {
            int part = Integer.parseInt(value);
            if (part >= 1 && part <= MAX) {
                return part;
            }
        } catch (NumberFormatException notANumber) {
            // Answered below, as any value outside 1..MAX is.
        }
        throw new S3Error(ErrorCode.INVALID_ARGUMENT, "Part number must be an integer between 1 and " + MAX + ", inclusive")
                .with("ArgumentName", PARAMETER).with("ArgumentValue", value);
    }
}

package io.weightstore.gateway.s3;

import io.weightstore.store.api.Range;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Range} header of a GET, against an object of a known size (RFC 9110 §14). One range is
 * served: {@code bytes=a-b} (b past the end is cut to the end), {@code bytes=a-} and {@code bytes=-n}
 * (the last n bytes; of an empty object, the whole of it). A range that starts at or past the end, or
 * asks for the last 0 bytes, is unsatisfiable: 416 {@code InvalidRange}. Several ranges in one header
 * are refused with {@code InvalidArgument} rather than served as a multipart body, which S3 clients do
 * not read. A header that is not a byte range at all is ignored, as the RFC says, and the whole object
 * served.
 */
public final class ByteRange {
    private static final Pattern SPEC = Pattern.compile("\\s*(\\d*)\\s*-\\s*(\\d*)\\s*");

    private ByteRange() {}

    /**
     * The range to serve, or empty to serve the whole object.
     *
     * @throws S3Error InvalidRange when it cannot be satisfied, InvalidArgument for several ranges
     */
    public static Optional<Range> parse(String header, long size) {
        if (header == null) {
            return Optional.empty();
        }
        int eq = header.indexOf('=');
        if (eq < 0 || !header.substring(0, eq).strip().equalsIgnoreCase("bytes")) {
            return Optional.empty();
        }
        String specs = header.substring(eq + 1);
        if (specs.contains(",")) {
            throw new S3Error(ErrorCode.INVALID_ARGUMENT, "Range '" + header + "' asks for several ranges; this gateway serves one range"
                    + " per request").with("ArgumentName", "Range").with("ArgumentValue", header);
        }
        Matcher spec = SPEC.matcher(specs);
        if (!spec.matches() || spec.group(1).isEmpty() && spec.group(2).isEmpty()) {
            return Optional.empty();
        }
        if (spec.group(1).isEmpty()) {
            long suffix = parseOrMax(spec.group(2));
            if (suffix == 0) {
                throw unsatisfiable(header, size);
            }
            if (size == 0) {
                // The one satisfiable range of an empty object (RFC 9110 §14.1.1), which S3 answers with the whole of it: tail
                // readers (a file's footer) ask it of every file, empty ones too.
                return Optional.empty();
            }
            long length = Math.min(suffix, size);
            return Optional.of(new Range(size - length, length));
        }
        long first = parseOrMax(spec.group(1));
        long last = spec.group(2).isEmpty() ? Long.MAX_VALUE : parseOrMax(spec.group(2));
        if (last < first) {
            return Optional.empty();
        }
        if (first >= size) {
            throw unsatisfiable(header, size);
        }
        return Optional.of(new Range(first, Math.min(last, size - 1) - first + 1));
    }

    /** The {@code Content-Range} of a 206 answering {@code range} of an object of {@code size} bytes. */
    public static String contentRange(Range range, long size) {
        return "bytes " + range.offset() + "-" + (range.end() - 1) + "/" + size;
    }

    /** Digits too many for a long still name a position past any object. */
    private static long parseOrMax(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private static S3Error unsatisfiable(String header, long size) {
        return new S3Error(ErrorCode.INVALID_RANGE, "Range '" + header + "' is not satisfiable: the object has " + size + " bytes")
                .with("RangeRequested", header).with("ActualObjectSize", Long.toString(size))
                .header("Content-Range", "bytes */" + size);
    }
}

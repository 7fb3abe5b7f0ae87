package io.weightstore.gateway.s3;

import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

/**
 * The conditional headers of a GET or HEAD, evaluated in RFC 9110's order (§13.2.2):
 * {@code If-Match}, else {@code If-Unmodified-Since} (a failure is 412 {@code PreconditionFailed});
 * then {@code If-None-Match}, else {@code If-Modified-Since} (a match is 304 Not Modified); and
 * {@code If-Range}, which keeps a {@code Range} only while the object is the one it names. Clients
 * that download in parts (s3transfer, rclone) send the first part's ETag with the next ones, so an
 * object replaced mid-download fails instead of mixing two versions. Dates compare at whole seconds,
 * the precision of {@code Last-Modified}.
 */
public final class Preconditions {
    /** What the request's conditions decide, when they do not fail it. */
    public enum Outcome {
        PROCEED,
        NOT_MODIFIED
    }

    private Preconditions() {}

    /**
     * @throws S3Error PreconditionFailed naming the condition that did not hold
     */
    public static Outcome evaluate(S3Request request, String etag, Instant lastModified) {
        String ifMatch = request.header("if-match");
        if (ifMatch != null) {
            if (!matches(ifMatch, etag, false)) {
                throw failed("If-Match", ifMatch, etag);
            }
        } else {
            Optional<Instant> since = HttpDates.parseHttp(request.header("if-unmodified-since"));
            if (since.isPresent() && lastModified.isAfter(since.get())) {
                throw failed("If-Unmodified-Since", request.header("if-unmodified-since"), HttpDates.http(lastModified));
            }
        }
        String ifNoneMatch = request.header("if-none-match");
        if (ifNoneMatch != null) {
            return matches(ifNoneMatch, etag, true) ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
        }
        Optional<Instant> since = HttpDates.parseHttp(request.header("if-modified-since"));
        return since.isPresent() && !lastModified.isAfter(since.get()) ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
    }

    /** Whether a {@code Range} still applies under the request's {@code If-Range}, if it has one. */
    public static boolean rangeApplies(S3Request request, String etag, Instant lastModified) {
        String ifRange = request.header("if-range");
        if (ifRange == null) {
            return true;
        }
        if (ifRange.strip().startsWith("\"")) {
            return ifRange.strip().equals(etag);
        }
        return HttpDates.parseHttp(ifRange).map(lastModified::equals).orElse(false);
    }

    /**
     * Whether {@code header}, {@code *} or a comma-separated list of entity tags, names {@code etag}.
     * A weak tag ({@code W/"..."}) counts only where RFC 9110 compares weakly ({@code If-None-Match});
     * a tag without its quotes counts too, as S3 takes it.
     */
    private static boolean matches(String header, String etag, boolean weak) {
        return Arrays.stream(header.split(",")).map(String::strip).map(tag -> weak && tag.startsWith("W/") ? tag.substring(2) : tag)
                .anyMatch(tag -> tag.equals("*") || tag.equals(etag) || ('"' + tag + '"').equals(etag));
    }

    private static S3Error failed(String condition, String asked, String actual) {
        return new S3Error(ErrorCode.PRECONDITION_FAILED, condition + ": " + asked + " does not hold; the object is " + actual)
                .with("Condition", condition);
    }
}

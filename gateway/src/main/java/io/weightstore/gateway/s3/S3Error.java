package io.weightstore.gateway.s3;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the gateway answers with an S3 error: the code, a message that says what was wrong, and
 * what else S3 puts in the document ({@code Key}, {@code StringToSign} …) or in headers
 * ({@code Allow}, {@code Content-Range}). Thrown from wherever the problem is found; the router
 * turns it into the response.
 */
public final class S3Error extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final Map<String, String> details = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    public S3Error(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public S3Error(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** Adds an element to the error document, after {@code Code}, {@code Message} and the standard ones. */
    public S3Error with(String element, String value) {
        details.put(element, value);
        return this;
    }

    /** Adds a response header. */
    public S3Error header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public ErrorCode code() {
        return code;
    }

    public Map<String, String> details() {
        return Map.copyOf(details);
    }

    public Map<String, String> headers() {
        return Map.copyOf(headers);
    }
}

package io.weightstore.gateway.s3;

/**
 * The S3 error codes this gateway answers with, each with the HTTP status S3 gives it; clients
 * branch on the code (botocore raises {@code NoSuchKey}, s3transfer retries {@code SlowDown}), so
 * codes and statuses are S3's own.
 */
public enum ErrorCode {
    ACCESS_DENIED("AccessDenied", 403),
    AUTHORIZATION_HEADER_MALFORMED("AuthorizationHeaderMalformed", 400),
    AUTHORIZATION_QUERY_PARAMETERS_ERROR("AuthorizationQueryParametersError", 400),
    INTERNAL_ERROR("InternalError", 500),
    INVALID_ACCESS_KEY_ID("InvalidAccessKeyId", 403),
    INVALID_ARGUMENT("InvalidArgument", 400),
    INVALID_PART_NUMBER("InvalidPartNumber", 416),
    INVALID_RANGE("InvalidRange", 416),
    INVALID_REQUEST("InvalidRequest", 400),
    INVALID_URI("InvalidURI", 400),
    METHOD_NOT_ALLOWED("MethodNotAllowed", 405),
    NO_SUCH_BUCKET("NoSuchBucket", 404),
    NO_SUCH_KEY("NoSuchKey", 404),
    NOT_IMPLEMENTED("NotImplemented", 501),
    PRECONDITION_FAILED("PreconditionFailed", 412),
    REQUEST_TIME_TOO_SKEWED("RequestTimeTooSkewed", 403),
    SERVICE_UNAVAILABLE("ServiceUnavailable", 503),
    SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", 403),
    SLOW_DOWN("SlowDown", 503),
    X_AMZ_CONTENT_SHA256_MISMATCH("XAmzContentSHA256Mismatch", 400);

    private final String code;
    private final int status;

    ErrorCode(String code, int status) {
        this.code = code;
        this.status = status;
    }

    /** The {@code <Code>} of the error document. */
    public String code() {
        return code;
    }

    public int status() {
        return status;
    }
}

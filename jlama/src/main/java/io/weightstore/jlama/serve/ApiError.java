package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A request the server answers with an error in OpenAI's form: {@code {"error": {"message", "type",
 * "param", "code"}}}, where {@code param} names the request field at fault (or is null) and
 * {@code code} is a short string (or null), never a number, as OpenAI's clients expect.
 */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final String param;
    private final String code;

    private ApiError(int status, String type, String param, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
    }

    /** A field that is missing, of the wrong type or out of range. */
    static ApiError invalid(String param, String message) {
        return new ApiError(400, "invalid_request_error", param, null, message);
    }

    /** A field this server does not implement, rather than ignoring it. */
    static ApiError unsupported(String param, String message) {
        return new ApiError(400, "invalid_request_error", param, "unsupported_parameter", message);
    }

    static ApiError contextLengthExceeded(String param, String message) {
        return new ApiError(400, "invalid_request_error", param, "context_length_exceeded", message);
    }

    static ApiError badBody(String message) {
        return new ApiError(400, "invalid_request_error", null, null, message);
    }

    static ApiError bodyTooLarge(String message) {
        return new ApiError(413, "invalid_request_error", null, null, message);
    }

    static ApiError requestTimeout(String message) {
        return new ApiError(408, "invalid_request_error", null, "request_timeout", message);
    }

    static ApiError modelNotFound(String param, String message) {
        return new ApiError(404, "invalid_request_error", param, "model_not_found", message);
    }

    static ApiError notFound(String message) {
        return new ApiError(404, "invalid_request_error", null, "not_found", message);
    }

    static ApiError methodNotAllowed(String message) {
        return new ApiError(405, "invalid_request_error", null, "method_not_allowed", message);
    }

    static ApiError unauthorized(String message) {
        return new ApiError(401, "invalid_request_error", null, "invalid_api_key", message);
    }

    static ApiError forbidden(String message) {
        return new ApiError(403, "invalid_request_error", null, "forbidden", message);
    }

    static ApiError queueFull(String message) {
        return new ApiError(429, "requests", null, "rate_limit_exceeded", message);
    }

    static ApiError unavailable(String message) {
        return new ApiError(503, "server_error", null, "unavailable", message);
    }

    static ApiError internal(String message) {
        return new ApiError(500, "server_error", null, null, message);
    }

    int status() {
        return status;
    }

    ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.putObject("error").put("message", getMessage()).put("type", type).put("param", param).put("code", code);
        return root;
    }
}

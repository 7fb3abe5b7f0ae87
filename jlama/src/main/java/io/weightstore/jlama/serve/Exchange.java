package io.weightstore.jlama.serve;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.helidon.common.buffers.DataReader;
import io.helidon.http.HeaderNames;
import io.helidon.http.RequestException;
import io.helidon.http.Status;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reading a JSON request body and writing JSON answers, with OpenAI-style errors for what goes wrong. */
final class Exchange {
    /** Enough for a prompt that fills a long context many times over. */
    static final int MAX_BODY = 16 << 20;
    /**
     * JSON tokens in a body: thousands of messages, each a handful. A body of 16 MiB of empty objects would
     * make a tree of hundreds of megabytes; a prompt is one token however long.
     */
    static final long MAX_TOKENS = 100_000;

    /**
     * Numbers are read exactly, so that range checks see 1e12 as it was sent; a field given twice
     * or anything after the object is an error rather than a guess, and so is a body of more than
     * {@link #MAX_TOKENS} tokens.
     */
    static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxTokenCount(MAX_TOKENS).build()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private Exchange() {}

    static JsonNode body(ServerRequest request) {
        byte[] bytes;
        try (InputStream in = request.content().inputStream()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        } catch (IOException | UncheckedIOException | ServerConnectionException | DataReader.InsufficientDataAvailableException e) {
            // The last is a body cut short of its Content-Length or its last chunk: the client went, the server did not fail.
            throw ClientGone.sendingBody(e);
        } catch (RequestException | IllegalArgumentException e) {
            // A body that breaks HTTP's framing, such as a chunk size that is no number (Helidon 4.5 lets its parse error through).
            throw ApiError.badBody("the request body could not be read: " + e.getMessage());
        }
        if (bytes.length > MAX_BODY) {
            throw ApiError.bodyTooLarge("the request body is larger than " + MAX_BODY + " bytes");
        }
        JsonNode body;
        try {
            body = JSON.readTree(bytes);
        } catch (StreamConstraintsException e) {
            throw ApiError.badBody("the request body holds too much JSON: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw ApiError.badBody("the request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            // Bytes no JSON encoding can decode (Jackson takes a body that opens with NULs for UTF-32).
            throw ApiError.badBody("the request body is not valid JSON: " + e.getMessage());
        }
        if (body == null || body.isMissingNode()) {
            throw ApiError.badBody("the request body is empty; it must be a JSON object");
        }
        if (!body.isObject()) {
            throw ApiError.badBody("the request body must be a JSON object, found " + Fields.describe(body));
        }
        return body;
    }

    /**
     * Writes a whole answer within the client deadline: Helidon writes with no deadline, and a client
     * that pipelines requests and reads no answer would hold its connection for good.
     */
    static void send(ClientDeadline deadline, ServerResponse response, int status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
        response.status(Status.create(status));
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        send(deadline, response, bytes);
    }

    /** As {@link #send(ClientDeadline, ServerResponse, int, JsonNode)}, for an answer already in bytes and headers set. */
    static void send(ClientDeadline deadline, ServerResponse response, byte[] bytes) {
        deadline.within(() -> {
            try {
                response.send(bytes);
            } catch (UncheckedIOException | ServerConnectionException e) {
                throw new ClientGone(e);
            }
        }, ClientGone::readTooSlowly);
    }

    static void send(ClientDeadline deadline, ServerResponse response, ApiError error) {
        if (error.status() == 401) {
            response.header(HeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        if (error.status() == 429) {
            // OpenAI's clients wait this long and retry by themselves.
            response.header(HeaderNames.RETRY_AFTER, "1");
        }
        send(deadline, response, error.status(), error.toJson());
    }
}

package io.weightstore.gateway;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.s3.UriEncoding;
import io.weightstore.gateway.sigv4.SigV4Verifier;
import io.weightstore.store.api.StoreException;
import io.weightstore.weights.CheckpointException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every request comes here: it is read as an {@link S3Request}, authenticated, sent to the operation
 * its method and target name, and any failure answered with S3's error document. The gateway is
 * read-only: GET and HEAD are the only methods, anything else is 405 {@code MethodNotAllowed}.
 */
final class S3Routes {
    private static final Logger log = LoggerFactory.getLogger(S3Routes.class);
    private static final String INTERNAL = "the gateway failed; its log says why, under this request's id";
    /** Sub-resources of a bucket that S3 has and this gateway does not. */
    private static final Set<String> UNSUPPORTED = Set.of("accelerate", "acl", "analytics", "cors", "encryption", "intelligent-tiering",
            "inventory", "lifecycle", "logging", "metrics", "notification", "object-lock", "ownershipControls", "policy", "policyStatus",
            "publicAccessBlock", "replication", "requestPayment", "tagging", "uploads", "versioning", "versions", "website");

    private final String bucket;
    private final SigV4Verifier verifier;
    private final boolean anonymous;
    private final BucketHandler buckets;
    private final ObjectHandler objects;

    S3Routes(String bucket, SigV4Verifier verifier, boolean anonymous, BucketHandler buckets, ObjectHandler objects) {
        this.bucket = bucket;
        this.verifier = verifier;
        this.anonymous = anonymous;
        this.buckets = buckets;
        this.objects = objects;
    }

    /** Answers {@code exchange}; a failure after its response started is the connection's end, as nothing else can be sent on it. */
    void handle(Exchange exchange) {
        String method = exchange.method();
        try {
            S3Request request = read(exchange);
            RequestTarget target = RequestTarget.of(request, bucket);
            boolean signed = authenticate(request);
            route(request, target, signed, exchange);
        } catch (S3Error e) {
            if (e.code() == ErrorCode.INTERNAL_ERROR || e.code() == ErrorCode.SERVICE_UNAVAILABLE) {
                log.warn("{} {} (request {}): {} {}", method, exchange.rawPath(), exchange.id().value(), e.code().code(), e.getMessage());
            }
            answer(exchange, e);
        } catch (StoreException | CheckpointException e) {
            S3Error error = storeError(e);
            log.warn("{} {} (request {}): {} {}", method, exchange.rawPath(), exchange.id().value(), error.code().code(), e.getMessage());
            answer(exchange, error);
        } catch (Exchange.ClientLeft e) {
            exchange.clientClosedRequest(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer(exchange, new S3Error(ErrorCode.SERVICE_UNAVAILABLE, "the gateway is stopping"));
        } catch (IOException | RuntimeException e) {
            log.error("{} {} (request {}) failed", method, exchange.rawPath(), exchange.id().value(), e);
            answer(exchange, new S3Error(ErrorCode.INTERNAL_ERROR, INTERNAL, e));
        }
    }

    private static void answer(Exchange exchange, S3Error error) {
        if (exchange.started()) {
            exchange.closeAfter();
            return;
        }
        Responses.error(exchange, error, resource(exchange.rawPath()));
    }

    private static S3Request read(Exchange exchange) {
        exchange.malformed().ifPresent(cause -> {
            throw new S3Error(ErrorCode.INVALID_REQUEST, "the request is not well-formed HTTP/1.1: " + cause.getMessage(), cause);
        });
        QueryString query;
        try {
            query = QueryString.parse(exchange.rawQuery());
        } catch (IllegalArgumentException e) {
            throw new S3Error(ErrorCode.INVALID_ARGUMENT, "the query does not decode: " + e.getMessage(), e);
        }
        Map<String, List<String>> headers = new HashMap<>();
        for (Map.Entry<String, String> header : exchange.requestHeaders()) {
            headers.computeIfAbsent(header.getKey(), name -> new ArrayList<>()).add(header.getValue());
        }
        return new S3Request(exchange.method(), exchange.rawPath(), query, headers);
    }

    /** Whether the request was signed; refuses one that is not unless the gateway serves anyone. */
    private boolean authenticate(S3Request request) {
        boolean signed = verifier.verify(request).isPresent();
        if (!signed && !anonymous) {
            throw new S3Error(ErrorCode.ACCESS_DENIED, "access denied: this gateway serves requests signed with AWS Signature V4 by"
                    + " one of its access keys (it was started without --anonymous)");
        }
        return signed;
    }

    private void route(S3Request request, RequestTarget target, boolean signed, Exchange exchange)
            throws IOException, InterruptedException {
        String method = request.method();
        boolean read = method.equals("GET") || method.equals("HEAD");
        switch (target) {
            case RequestTarget.Service service -> {
                if (!method.equals("GET")) {
                    throw notAllowed(method, "SERVICE", "GET");
                }
                buckets.listBuckets(exchange);
            }
            case RequestTarget.Bucket(String name) -> {
                requireBucket(name);
                if (!read) {
                    throw notAllowed(method, "BUCKET", "GET, HEAD");
                }
                if (method.equals("HEAD")) {
                    buckets.head(exchange);
                    return;
                }
                for (String parameter : UNSUPPORTED) {
                    if (request.query().has(parameter)) {
                        throw new S3Error(ErrorCode.NOT_IMPLEMENTED, "?" + parameter + " of a bucket is not supported by this read-only"
                                + " gateway");
                    }
                }
                if (request.query().has("location")) {
                    buckets.location(exchange);
                } else {
                    buckets.list(request, exchange);
                }
            }
            case RequestTarget.Key(String name, String key) -> {
                requireBucket(name);
                if (!read) {
                    throw notAllowed(method, "OBJECT", "GET, HEAD");
                }
                objects.handle(request, key, signed, exchange);
            }
        }
    }

    private void requireBucket(String name) {
        if (!name.equals(bucket)) {
            throw new S3Error(ErrorCode.NO_SUCH_BUCKET, "the specified bucket does not exist: " + name + " (this gateway has one bucket, "
                    + bucket + ")").with("BucketName", name);
        }
    }

    private static S3Error notAllowed(String method, String resourceType, String allowed) {
        return new S3Error(ErrorCode.METHOD_NOT_ALLOWED, method + " is not allowed: this gateway is read-only (" + allowed + ")")
                .with("Method", method).with("ResourceType", resourceType).header("Allow", allowed);
    }

    /**
     * A failure of the store or catalog as S3 says it: an object deleted while it was read is gone, the
     * store out of reach is worth a retry, anything else is ours. The store's own words name hosts,
     * ports and pool offsets, so they go to the log, under the request's id, and not to the client;
     * the catalog's (a file that is not what its import stored) name only the checkpoint.
     */
    private static S3Error storeError(IOException e) {
        if (e instanceof StoreException s) {
            return switch (s.code()) {
                case NOT_FOUND -> new S3Error(ErrorCode.NO_SUCH_KEY, "the specified key does not exist: it was deleted while it was"
                        + " read", e);
                case UNAVAILABLE -> new S3Error(ErrorCode.SERVICE_UNAVAILABLE, "the store cannot serve this now; retry after a back-off"
                        + " (the gateway's log says why, under this request's id)", e);
                default -> new S3Error(ErrorCode.INTERNAL_ERROR, INTERNAL, e);
            };
        }
        return new S3Error(ErrorCode.INTERNAL_ERROR, "the store failed: " + e.getMessage(), e);
    }

    /** The resource as S3's error documents name it: the path, decoded when it can be. */
    private static String resource(String rawPath) {
        try {
            return UriEncoding.decode(rawPath);
        } catch (IllegalArgumentException e) {
            return rawPath;
        }
    }
}

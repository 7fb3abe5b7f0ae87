package io.weightstore.gateway;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerResponse;
import io.weightstore.gateway.bucket.BucketObject;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.bucket.OpenFile;
import io.weightstore.gateway.s3.ByteRange;
import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.HttpDates;
import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.gateway.s3.Preconditions;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.transfer.ChunkedCopy;
import io.weightstore.gateway.transfer.ResponseWriter;
import io.weightstore.gateway.transfer.TransferSlots;
import io.weightstore.store.api.Range;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetObject and HeadObject: conditional headers, one byte range, S3's response-header overrides,
 * and the full-object SHA-256 checksum for clients that ask for it. A GET takes a transfer slot and
 * opens the file under a read lease (shared with the GETs of the file in flight) held until the last
 * byte is written; it sends the range from the nodes' pools mapped in place when the gateway runs on
 * their host, checked before the first byte, else in chunks read from the store, double buffered.
 */
final class ObjectHandler {
    private static final Logger log = LoggerFactory.getLogger(ObjectHandler.class);
    /** GetObject's {@code response-*} parameters and the header each one sets. */
    private static final Map<String, String> OVERRIDES = Map.of("response-content-type", "Content-Type",
            "response-content-disposition", "Content-Disposition", "response-content-encoding", "Content-Encoding",
            "response-content-language", "Content-Language", "response-cache-control", "Cache-Control", "response-expires", "Expires");
    /** Sub-resources of an object that S3 has and a read-only gateway over checkpoints does not. */
    private static final Set<String> UNSUPPORTED = Set.of("acl", "attributes", "legal-hold", "partNumber",
            "retention", "tagging", "torrent", "uploadId");

    private final CheckpointBucket bucket;
    private final TransferSlots slots;
    private final GatewayMetrics metrics;
    private final ExecutorService readers;

    ObjectHandler(CheckpointBucket bucket, TransferSlots slots, ExecutorService readers, GatewayMetrics metrics) {
        this.bucket = bucket;
        this.slots = slots;
        this.metrics = metrics;
        this.readers = readers;
    }

    /** Serves the object; once more if its checkpoint changed meanwhile, so a replaced checkpoint is served new at once. */
    void handle(S3Request request, String key, boolean signed, ServerResponse response) throws IOException, InterruptedException {
        try {
            serve(request, key, signed, response);
        } catch (CheckpointBucket.Changed changed) {
            try {
                serve(request, key, signed, response);
            } catch (CheckpointBucket.Changed again) {
                throw new S3Error(ErrorCode.SERVICE_UNAVAILABLE, again.getMessage() + ", twice; retry", again);
            }
        }
    }

    private void serve(S3Request request, String key, boolean signed, ServerResponse response) throws IOException, InterruptedException {
        boolean head = request.method().equals("HEAD");
        for (String parameter : UNSUPPORTED) {
            if (request.query().has(parameter)) {
                throw new S3Error(ErrorCode.NOT_IMPLEMENTED, "?" + parameter + " of an object is not supported by this read-only gateway");
            }
        }
        BucketObject object = bucket.find(key).orElseThrow(() -> new S3Error(ErrorCode.NO_SUCH_KEY, "the specified key does not"
                + " exist: " + key + " (no READY checkpoint has this file)").with("Key", key));
        ObjectInfo info = object.info();
        if (Preconditions.evaluate(request, info.etag(), info.lastModified()) == Preconditions.Outcome.NOT_MODIFIED) {
            response.status(Status.NOT_MODIFIED_304);
            response.header(HeaderNames.ETAG, info.etag());
            response.header(HeaderNames.LAST_MODIFIED, HttpDates.http(info.lastModified()));
            response.send();
            return;
        }
        Optional<Range> asked = Preconditions.rangeApplies(request, info.etag(), info.lastModified())
                ? ByteRange.parse(request.header("range"), info.size()) : Optional.empty();
        Range range = asked.orElse(new Range(0, info.size()));
        Map<String, String> headers = headers(request, object, asked, range, signed);
        if (head || range.length() == 0) {
            start(response, asked.isPresent(), headers);
            response.send();
            return;
        }
        try (TransferSlots.Slot slot = slots.acquire(); OpenFile file = bucket.acquire(object)) {
            // Mapped and checked before the status is sent, so a copy here that fails its check is never what is served.
            Optional<MemorySegment> inPlace = file.inPlace();
            if (inPlace.isPresent()) {
                start(response, asked.isPresent(), headers);
                OutputStream out = response.outputStream();
                new ResponseWriter(out).write(inPlace.get().asSlice(range.offset(), range.length()), slot.buffer(0));
                out.close();
                metrics.sent(range.length());
                return;
            }
            try (ChunkedCopy copy = ChunkedCopy.start(file.reader(), range, slot, readers)) {
                start(response, asked.isPresent(), headers);
                OutputStream out = response.outputStream();
                try {
                    copy.writeTo(new ResponseWriter(out));
                } catch (ChunkedCopy.ReadFailed e) {
                    log.warn("GET {}: {}; closing the connection", key, e.getMessage());
                    throw new CloseConnectionException(e.getMessage(), e);
                }
                // Closed only after the last byte: closing a stream that is short of its Content-Length would end the response.
                out.close();
                metrics.sent(range.length());
            }
        }
    }

    private static Map<String, String> headers(S3Request request, BucketObject object, Optional<Range> asked, Range range, boolean signed) {
        ObjectInfo info = object.info();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", ContentTypes.of(info.key()));
        headers.put("Content-Length", Long.toString(range.length()));
        headers.put("ETag", info.etag());
        headers.put("Last-Modified", HttpDates.http(info.lastModified()));
        headers.put("Accept-Ranges", "bytes");
        asked.ifPresent(r -> headers.put("Content-Range", ByteRange.contentRange(r, info.size())));
        // A client that asks for checksums gets the SHA-256 S3 would give a single-part object, for the whole object only.
        if ("ENABLED".equalsIgnoreCase(request.header("x-amz-checksum-mode")) && asked.isEmpty()) {
            headers.put("x-amz-checksum-sha256", Base64.getEncoder().encodeToString(HexFormat.of().parseHex(object.sha256())));
            headers.put("x-amz-checksum-type", "FULL_OBJECT");
        }
        for (Map.Entry<String, String> override : OVERRIDES.entrySet()) {
            Optional<String> value = request.query().first(override.getKey());
            if (value.isPresent() && !signed) {
                throw new S3Error(ErrorCode.INVALID_REQUEST, override.getKey() + " cannot be used in an anonymous GET; sign the request");
            }
            value.ifPresent(v -> headers.put(override.getValue(), v));
        }
        return headers;
    }

    private static void start(ServerResponse response, boolean partial, Map<String, String> headers) {
        response.status(partial ? Status.PARTIAL_CONTENT_206 : Status.OK_200);
        headers.forEach(response::header);
    }
}

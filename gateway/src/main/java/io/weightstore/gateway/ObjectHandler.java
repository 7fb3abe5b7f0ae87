package io.weightstore.gateway;

import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.weightstore.gateway.bucket.BucketObject;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.bucket.OpenFile;
import io.weightstore.gateway.s3.ByteRange;
import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.HttpDates;
import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.gateway.s3.PartNumber;
import io.weightstore.gateway.s3.Preconditions;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.transfer.BodyWriter;
import io.weightstore.gateway.transfer.ChunkedCopy;
import io.weightstore.gateway.transfer.TransferSlots;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
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
 * GetObject and HeadObject: conditional headers, one byte range or part 1, S3's response-header overrides,
 * and the full-object SHA-256 checksum for clients that ask for it. A GET takes a transfer slot and
 * opens the file under a read lease (shared with the GETs of the file in flight) held until the socket
 * took the last byte; it sends the range with sendfile from the nodes' pool files when the gateway
 * runs on their host, checked before the first byte, else in chunks read from the store, double
 * buffered.
 */
final class ObjectHandler {
    private static final Logger log = LoggerFactory.getLogger(ObjectHandler.class);
    /** GetObject's {@code response-*} parameters and the header each one sets. */
    private static final Map<String, String> OVERRIDES = Map.of("response-content-type", "Content-Type",
            "response-content-disposition", "Content-Disposition", "response-content-encoding", "Content-Encoding",
            "response-content-language", "Content-Language", "response-cache-control", "Cache-Control", "response-expires", "Expires");
    /** Sub-resources of an object that S3 has and a read-only gateway over checkpoints does not. */
    private static final Set<String> UNSUPPORTED = Set.of("acl", "attributes", "legal-hold", "retention", "tagging", "torrent",
            "uploadId");

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
    void handle(S3Request request, String key, boolean signed, Exchange exchange) throws IOException, InterruptedException {
        try {
            serve(request, key, signed, exchange);
        } catch (CheckpointBucket.Changed changed) {
            try {
                serve(request, key, signed, exchange);
            } catch (CheckpointBucket.Changed again) {
                throw new S3Error(ErrorCode.SERVICE_UNAVAILABLE, again.getMessage() + ", twice; retry", again);
            }
        }
    }

    private void serve(S3Request request, String key, boolean signed, Exchange exchange) throws IOException, InterruptedException {
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
            exchange.header("ETag", info.etag());
            exchange.header("Last-Modified", HttpDates.http(info.lastModified()));
            exchange.send(304);
            return;
        }
        Optional<String> part = request.query().first(PartNumber.PARAMETER);
        Optional<Range> asked = part.isPresent() ? PartNumber.range(part.get(), request.header("range"), info.size())
                : Preconditions.rangeApplies(request, info.etag(), info.lastModified())
                        ? ByteRange.parse(request.header("range"), info.size()) : Optional.empty();
        Range range = asked.orElse(new Range(0, info.size()));
        // Set only on the response that sends the object: an error on the way (no slot, the file gone) must not carry them.
        Map<String, String> headers = headers(request, object, asked, range, signed);
        int status = asked.isPresent() ? 206 : 200;
        if (head || range.length() == 0) {
            headers.forEach(exchange::header);
            exchange.send(status);
            return;
        }
        try (TransferSlots.Slot slot = exchange.awaitSlot(slots); OpenFile file = bucket.acquire(object)) {
            // Opened and checked before the status is sent, so a copy here that fails its check is never what is served.
            Optional<InPlaceFiles> inPlace = file.inPlace();
            if (inPlace.isPresent()) {
                // A lease that no longer holds is an S3 error while nothing of the object went out yet.
                try {
                    file.reader().requireLeaseHeld();
                } catch (IllegalStateException closing) {
                    throw new S3Error(ErrorCode.SERVICE_UNAVAILABLE, "the gateway is stopping");
                }
                headers.forEach(exchange::header);
                BodyWriter body = exchange.startBody(status);
                send(exchange, body, () -> sendInPlace(body, inPlace.get(), range, file.reader(), slot.chunkBytes()));
                return;
            }
            try (ChunkedCopy copy = ChunkedCopy.start(file.reader(), range, slot, readers)) {
                headers.forEach(exchange::header);
                BodyWriter body = exchange.startBody(status);
                send(exchange, body, () -> copy.writeTo(body));
            }
        }
    }

    /**
     * Sends {@code range} from the pool files in place, a chunk at a time with the next one queued behind it. The
     * bytes leave by sendfile, which no read of the store checks, so before each chunk is queued the file's lease
     * must still hold: once the file is deleted, or its lease runs out while the master cannot be reached, its room
     * may be reused by another object, and no more than the chunk queued already goes out from it.
     */
    private static void sendInPlace(BodyWriter body, InPlaceFiles files, Range range, ObjectReader reader, int chunkBytes)
            throws IOException {
        BodyWriter.Sent queued = null;
        for (long at = range.offset(); at < range.end(); at += chunkBytes) {
            try {
                reader.requireLeaseHeld();
            } catch (StoreException | IllegalStateException e) {
                // Gone, run out, or the store client closing under the transfer.
                throw new LeaseEnded("the file's lease ended mid-transfer: " + e.getMessage(), e);
            }
            BodyWriter.Sent sent = body.write(files.ranges(at, Math.min(chunkBytes, range.end() - at)));
            if (queued != null) {
                queued.await();
            }
            queued = sent;
        }
        if (queued != null) {
            queued.await();
        }
    }

    /** The lease of a file sent in place no longer held after part of the range was sent. */
    private static final class LeaseEnded extends IOException {
        private static final long serialVersionUID = 1L;

        LeaseEnded(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What sends a body; it returns once the socket took the last byte. */
    private interface Transfer {
        void run() throws IOException;
    }

    /**
     * Runs {@code transfer} and ends the body. One that fails ends the connection, the only way to
     * tell the client its response is short, and lets go of the memory the body was sent from first.
     */
    private void send(Exchange exchange, BodyWriter body, Transfer transfer) {
        try {
            transfer.run();
        } catch (ChunkedCopy.ReadFailed | LeaseEnded e) {
            log.warn("GET {}: {}; closing the connection", exchange.rawPath(), e.getMessage());
            body.abort();
            exchange.note((e instanceof LeaseEnded ? "the file's lease ended" : "a store read failed") + " mid-transfer; connection closed");
            exchange.closeAfter();
            return;
        } catch (IOException e) {
            body.abort();
            exchange.note("client went away: " + e.getMessage());
            exchange.closeAfter();
            return;
        } catch (RuntimeException | Error e) {
            // The writes still queued point at the slot's buffers, which the next transfer takes once this returns.
            body.abort();
            throw e;
        }
        exchange.endBody();
        metrics.sent(body.written());
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
        // A client that asks for checksums gets the SHA-256 S3 would give a single-part object, for the whole object only:
        // asked for whole, or as its one part.
        boolean whole = asked.isEmpty() || request.query().has(PartNumber.PARAMETER);
        if ("ENABLED".equalsIgnoreCase(request.header("x-amz-checksum-mode")) && whole) {
            headers.put("x-amz-checksum-sha256", Base64.getEncoder().encodeToString(HexFormat.of().parseHex(object.sha256())));
            headers.put("x-amz-checksum-type", "FULL_OBJECT");
        }
        for (Map.Entry<String, String> override : OVERRIDES.entrySet()) {
            Optional<String> value = request.query().first(override.getKey());
            if (value.isPresent() && !signed) {
                throw new S3Error(ErrorCode.INVALID_REQUEST, override.getKey() + " cannot be used in an anonymous GET; sign the request");
            }
            if (value.isPresent() && HttpHeaderValidationUtil.validateValidHeaderValue(value.get()) >= 0) {
                // Refused here, before a transfer slot and a lease are taken: set on the response, it threw there.
                throw new S3Error(ErrorCode.INVALID_ARGUMENT, override.getKey() + " holds a character no header value may hold")
                        .with("ArgumentName", override.getKey()).with("ArgumentValue", value.get());
            }
            value.ifPresent(v -> headers.put(override.getValue(), v));
        }
        return headers;
    }
}

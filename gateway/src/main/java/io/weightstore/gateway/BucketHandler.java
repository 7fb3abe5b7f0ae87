package io.weightstore.gateway;

import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.s3.BucketDocuments;
import io.weightstore.gateway.s3.ListDocument;
import io.weightstore.gateway.s3.ListPage;
import io.weightstore.gateway.s3.ListRequest;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.transfer.TransferSlots;
import java.io.IOException;
import java.time.Instant;

/** The service's and the bucket's read operations: ListBuckets, HeadBucket, GetBucketLocation, ListObjects (v1 and v2). */
final class BucketHandler {
    private final CheckpointBucket bucket;
    private final TransferSlots slots;
    private final Instant created;

    /** {@code created} is what ListBuckets gives as the bucket's creation date: when the gateway started. */
    BucketHandler(CheckpointBucket bucket, TransferSlots slots, Instant created) {
        this.bucket = bucket;
        this.slots = slots;
        this.created = created;
    }

    void listBuckets(Exchange exchange) {
        Responses.xml(exchange, BucketDocuments.listBuckets(bucket.name(), created));
    }

    void head(Exchange exchange) {
        exchange.header("x-amz-bucket-region", "us-east-1");
        exchange.send(200);
    }

    void location(Exchange exchange) {
        Responses.xml(exchange, BucketDocuments.location());
    }

    /**
     * A page may hold many keys in memory (a checkpoint's files, or every key under the prefix with a delimiter other
     * than {@code /}): so a listing takes a transfer slot as a GET does, and a crowd of clients listing a large bucket at
     * once waits or is told to slow down instead of filling the heap.
     */
    void list(S3Request request, Exchange exchange) throws IOException, InterruptedException {
        ListRequest list = ListRequest.parse(request.query());
        try (TransferSlots.Slot _ = exchange.awaitSlot(slots)) {
            ListPage page = ListPage.of(bucket.list(list), list);
            Responses.xml(exchange, ListDocument.render(bucket.name(), list, page));
        }
    }
}

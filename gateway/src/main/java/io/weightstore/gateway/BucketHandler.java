package io.weightstore.gateway;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.s3.BucketDocuments;
import io.weightstore.gateway.s3.ListDocument;
import io.weightstore.gateway.s3.ListPage;
import io.weightstore.gateway.s3.ListRequest;
import io.weightstore.gateway.s3.S3Request;
import java.io.IOException;
import java.time.Instant;

/** The service's and the bucket's read operations: ListBuckets, HeadBucket, GetBucketLocation, ListObjects (v1 and v2). */
final class BucketHandler {
    private final CheckpointBucket bucket;
    private final Instant created;

    /** {@code created} is what ListBuckets gives as the bucket's creation date: when the gateway started. */
    BucketHandler(CheckpointBucket bucket, Instant created) {
        this.bucket = bucket;
        this.created = created;
    }

    void listBuckets(ServerResponse response) {
        Responses.xml(response, BucketDocuments.listBuckets(bucket.name(), created));
    }

    void head(ServerResponse response) {
        response.status(Status.OK_200);
        response.header("x-amz-bucket-region", "us-east-1");
        response.send();
    }

    void location(ServerResponse response) {
        Responses.xml(response, BucketDocuments.location());
    }

    void list(S3Request request, ServerResponse response) throws IOException {
        ListRequest list = ListRequest.parse(request.query());
        ListPage page = ListPage.of(bucket.list(list.prefix()), list);
        Responses.xml(response, ListDocument.render(bucket.name(), list, page));
    }
}

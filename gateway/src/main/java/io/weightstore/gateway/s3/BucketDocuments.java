package io.weightstore.gateway.s3;

import java.time.Instant;

/** The service's and a bucket's own documents: ListAllMyBucketsResult and LocationConstraint. */
public final class BucketDocuments {
    private static final String OWNER = "weightstore";

    private BucketDocuments() {}

    public static byte[] listBuckets(String bucket, Instant created) {
        return new XmlWriter().root("ListAllMyBucketsResult", true)
                .open("Owner").element("ID", OWNER).element("DisplayName", OWNER).close("Owner")
                .open("Buckets").open("Bucket").element("Name", bucket).element("CreationDate", HttpDates.iso(created)).close("Bucket")
                .close("Buckets").close("ListAllMyBucketsResult").toBytes();
    }

    /** An empty constraint: the bucket is in us-east-1, the region S3 clients sign for unless told otherwise. */
    public static byte[] location() {
        return new XmlWriter().root("LocationConstraint", true).close("LocationConstraint").toBytes();
    }
}

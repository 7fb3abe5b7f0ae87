package io.weightstore.gateway.bucket;

import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.weights.StoredFile;

/** A key of the bucket that names a file of a READY checkpoint: what S3 says of it, and the stored file. */
public record BucketObject(ObjectInfo info, String sha256, StoredFile file) {}

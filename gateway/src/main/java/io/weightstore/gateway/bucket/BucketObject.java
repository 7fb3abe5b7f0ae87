package io.weightstore.gateway.bucket;

import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.StoredFile;
import java.time.Instant;

/**
 * A key of the bucket that names a file of a READY checkpoint: what S3 says of it, the stored file,
 * its checkpoint, and the version of the manifest that says so (the creation time of its object).
 */
public record BucketObject(ObjectInfo info, String sha256, StoredFile file, CheckpointId checkpoint, Instant manifestVersion) {}

package io.weightstore.gateway.s3;

import java.time.Instant;

/**
 * What S3 says of an object in headers and listings.
 *
 * @param etag the entity tag with its quotes, as it goes into {@code ETag}
 * @param lastModified whole seconds, the precision of {@code Last-Modified}
 */
public record ObjectInfo(String key, long size, String etag, Instant lastModified) {}

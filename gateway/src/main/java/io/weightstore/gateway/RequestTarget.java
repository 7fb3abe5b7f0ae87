package io.weightstore.gateway;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.s3.UriEncoding;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a request addresses: the service (ListBuckets), a bucket, or a key in a bucket. Clients name
 * the bucket in the path ({@code /weights/ckpt/config.json}), or, virtual-hosted style, in the host
 * ({@code weights.gateway.example:9000/ckpt/config.json}); both are understood for this gateway's
 * bucket. A host named after the bucket may be reached path-style too, as the README advises
 * ({@code weights.internal:9000/weights/ckpt/config.json}): a path that starts with the bucket is
 * read path-style whatever the host, so only a checkpoint named as the bucket is out of reach of a
 * virtual-hosted client (keys are CHECKPOINT/FILE, so a key of the bucket's name alone never exists).
 * On such a host a {@code GET /} lists the bucket: a virtual-hosted client's first listing may carry no
 * parameter at all (s3cmd's), exactly as a path-style ListBuckets does ({@code aws s3 ls}). Only a
 * parameter that ListBuckets alone takes makes it the service's.
 */
sealed interface RequestTarget {
    Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}(:\\d+)?");
    /** What only a ListBuckets carries. */
    Set<String> SERVICE_PARAMETERS = Set.of("max-buckets", "bucket-region");

    record Service() implements RequestTarget {}

    record Bucket(String name) implements RequestTarget {}

    record Key(String bucket, String key) implements RequestTarget {}

    /**
     * @throws S3Error InvalidURI when the path does not decode
     */
    static RequestTarget of(S3Request request, String bucket) {
        String path;
        try {
            path = UriEncoding.decode(request.rawPath());
        } catch (IllegalArgumentException e) {
            throw new S3Error(ErrorCode.INVALID_URI, "the path does not decode: " + e.getMessage(), e);
        }
        String rest = path.startsWith("/") ? path.substring(1) : path;
        boolean bucketFirst = rest.equals(bucket) || rest.startsWith(bucket + "/");
        if (!bucketFirst && isVirtualHosted(request.header("host"), bucket) && !(rest.isEmpty() && listsBuckets(request))) {
            return rest.isEmpty() ? new Bucket(bucket) : new Key(bucket, rest);
        }
        if (rest.isEmpty()) {
            return new Service();
        }
        int slash = rest.indexOf('/');
        if (slash < 0 || slash == rest.length() - 1) {
            return new Bucket(slash < 0 ? rest : rest.substring(0, slash));
        }
        return new Key(rest.substring(0, slash), rest.substring(slash + 1));
    }

    private static boolean listsBuckets(S3Request request) {
        return request.method().equals("GET") && (request.query().first("x-id").filter("ListBuckets"::equals).isPresent()
                || request.query().parameters().stream().anyMatch(p -> SERVICE_PARAMETERS.contains(p.name())));
    }

    /** Whether the host names the bucket: {@code bucket.} first, and not an IP address (bucket {@code 127} and host {@code 127.0.0.1}). */
    private static boolean isVirtualHosted(String host, String bucket) {
        return host != null && host.toLowerCase(Locale.ROOT).startsWith(bucket + ".") && !IP_ADDRESS.matcher(host).matches();
    }
}

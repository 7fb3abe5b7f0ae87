package io.weightstore.gateway.sigv4;

import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.S3Request;
import io.weightstore.gateway.s3.UriEncoding;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The canonical request of Signature V4 for S3, built from the request as it arrived: method; the
 * path decoded and encoded again by the spec's rules, once (S3 does not double-encode or normalize
 * paths); the query, each name and value encoded and the pairs sorted by name, then value; each
 * signed header as {@code name:value} with runs of whitespace folded to one space and repeated
 * headers joined by commas; the signed header names; the payload hash.
 */
final class CanonicalRequest {
    static final String SIGNATURE_PARAMETER = "X-Amz-Signature";
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private CanonicalRequest() {}

    /**
     * @param presigned whether the signature is in the query, which then leaves out its own parameter
     * @throws IllegalArgumentException when a signed header is not in the request
     */
    static String of(S3Request request, List<String> signedHeaders, String payloadHash, boolean presigned) {
        return request.method() + '\n' + uri(request.rawPath()) + '\n' + query(request.query(), presigned) + '\n'
                + headers(request, signedHeaders) + '\n' + String.join(";", signedHeaders) + '\n' + payloadHash;
    }

    static String uri(String rawPath) {
        String path = UriEncoding.decode(rawPath);
        return path.isEmpty() ? "/" : UriEncoding.encode(path, true);
    }

    static String query(QueryString query, boolean presigned) {
        return query.parameters().stream()
                .filter(p -> !(presigned && p.name().equals(SIGNATURE_PARAMETER)))
                .map(p -> new QueryString.Parameter(UriEncoding.encode(p.name(), false), UriEncoding.encode(p.value(), false)))
                .sorted(Comparator.comparing(QueryString.Parameter::name).thenComparing(QueryString.Parameter::value))
                .map(p -> p.name() + '=' + p.value())
                .reduce((a, b) -> a + '&' + b).orElse("");
    }

    private static String headers(S3Request request, List<String> signedHeaders) {
        StringBuilder out = new StringBuilder();
        for (String name : signedHeaders) {
            List<String> values = request.headers().get(name);
            if (values == null) {
                throw new IllegalArgumentException("header '" + name + "' is signed but not in the request");
            }
            out.append(name).append(':');
            for (int i = 0; i < values.size(); i++) {
                out.append(i == 0 ? "" : ",").append(WHITESPACE.matcher(values.get(i).strip()).replaceAll(" "));
            }
            out.append('\n');
        }
        return out.toString();
    }
}

package io.weightstore.gateway;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A client's Signature V4 signer, written for the tests from the spec, apart from the gateway's
 * verifier: it signs a URI whose path and query are already encoded as the spec wants them (the
 * tests build them so), with the headers given, and returns what to send.
 */
public final class TestSigner {
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final String accessKey;
    private final String secretKey;
    private final String region;

    public TestSigner(String accessKey, String secretKey, String region) {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.region = region;
    }

    /** The headers to send with {@code method uri}: {@code extra}, x-amz-date, x-amz-content-sha256 and Authorization. */
    public Map<String, String> sign(String method, URI uri, Map<String, String> extra, Instant time, String payloadHash) {
        String date = AMZ_DATE.format(time);
        TreeMap<String, String> signed = new TreeMap<>();
        extra.forEach((name, value) -> signed.put(name.toLowerCase(Locale.ROOT), value));
        signed.put("host", uri.getRawAuthority());
        signed.put("x-amz-date", date);
        signed.put("x-amz-content-sha256", payloadHash);
        String names = String.join(";", signed.keySet());
        String canonicalHeaders = signed.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue().strip() + "\n")
                .collect(Collectors.joining());
        String canonical = method + "\n" + path(uri) + "\n" + sortedQuery(uri.getRawQuery()) + "\n" + canonicalHeaders + "\n" + names
                + "\n" + payloadHash;
        String signature = signature(date, canonical);
        Map<String, String> headers = new LinkedHashMap<>(extra);
        headers.put("x-amz-date", date);
        headers.put("x-amz-content-sha256", payloadHash);
        headers.put("Authorization", "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope(date) + ", SignedHeaders=" + names
                + ", Signature=" + signature);
        return headers;
    }

    /** {@code uri} as a presigned URL for {@code method}, valid {@code expiresSeconds} from {@code time}, signing only host. */
    public URI presign(String method, URI uri, Instant time, long expiresSeconds) {
        String date = AMZ_DATE.format(time);
        String auth = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + accessKey + "%2F" + scope(date).replace("/", "%2F")
                + "&X-Amz-Date=" + date + "&X-Amz-Expires=" + expiresSeconds + "&X-Amz-SignedHeaders=host";
        String query = uri.getRawQuery() == null ? auth : uri.getRawQuery() + "&" + auth;
        String canonical = method + "\n" + path(uri) + "\n" + sortedQuery(query) + "\nhost:" + uri.getRawAuthority() + "\n\nhost\n"
                + "UNSIGNED-PAYLOAD";
        return URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath() + "?" + query + "&X-Amz-Signature="
                + signature(date, canonical));
    }

    private static String path(URI uri) {
        return uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    }

    private static String sortedQuery(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        return Arrays.stream(raw.split("&")).map(p -> p.contains("=") ? p.split("=", 2) : new String[] {p, ""})
                .sorted(Comparator.<String[], String>comparing(p -> p[0]).thenComparing(p -> p[1]))
                .map(p -> p[0] + "=" + p[1]).collect(Collectors.joining("&"));
    }

    private String scope(String date) {
        return date.substring(0, 8) + "/" + region + "/s3/aws4_request";
    }

    private String signature(String date, String canonical) {
        String stringToSign = "AWS4-HMAC-SHA256\n" + date + "\n" + scope(date) + "\n" + hex(sha256(canonical));
        byte[] key = hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), date.substring(0, 8));
        key = hmac(key, region);
        key = hmac(key, "s3");
        key = hmac(key, "aws4_request");
        return hex(hmac(key, stringToSign));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}

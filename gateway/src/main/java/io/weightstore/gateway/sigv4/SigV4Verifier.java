package io.weightstore.gateway.sigv4;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Verifies AWS Signature Version 4, in the {@code Authorization} header or in a presigned URL's
 * query, against the access keys it knows: the canonical request is rebuilt from the request as it
 * arrived ({@link CanonicalRequest}), signed with the key's signing key, and the result compared
 * with the client's in constant time. Header signatures must be dated within
 * {@link #MAX_CLOCK_SKEW} of this server's clock; presigned URLs must not have expired, and may not
 * be dated more than that skew in the future. Every {@code x-amz-*} header of the request must be
 * signed, so none can be added on the way.
 */
public final class SigV4Verifier {
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(15);
    /** A week: the longest a presigned URL may live. */
    public static final long MAX_EXPIRES_SECONDS = 604_800;
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'");
    private static final String CONTENT_SHA256 = "x-amz-content-sha256";

    private final Map<String, Credentials> keys;
    private final Clock clock;

    public SigV4Verifier(List<Credentials> keys, Clock clock) {
        this.keys = keys.stream().collect(Collectors.toUnmodifiableMap(Credentials::accessKeyId, Function.identity()));
        this.clock = clock;
    }

    /** What a signature claims, wherever it was carried. */
    private record Claim(Credentials key, CredentialScope scope, String amzDate, List<String> signedHeaders, String signature,
            String payloadHash, boolean presigned) {}

    /**
     * The access key id that signed {@code request}, or empty when it carries no signature at all.
     *
     * @throws S3Error for a signature that is malformed, made with an unknown key, out of date, or wrong
     */
    public Optional<String> verify(S3Request request) {
        String authorization = request.header("authorization");
        boolean inQuery = request.query().has("X-Amz-Algorithm") || request.query().has("X-Amz-Credential")
                || request.query().has(CanonicalRequest.SIGNATURE_PARAMETER);
        if (authorization != null && inQuery) {
            throw new S3Error(ErrorCode.INVALID_ARGUMENT, "only one auth mechanism allowed: the Authorization header or the X-Amz-* query"
                    + " parameters of a presigned URL, not both");
        }
        if (authorization == null && !inQuery) {
            if (request.query().has("AWSAccessKeyId") && request.query().has("Signature")) {
                throw new S3Error(ErrorCode.INVALID_REQUEST, "this URL is presigned with Signature Version 2, which is not supported;"
                        + " presign with AWS4-HMAC-SHA256 (boto3: Config(signature_version=\"s3v4\"))");
            }
            return Optional.empty();
        }
        Claim claim = authorization != null ? fromHeader(request, authorization) : fromQuery(request);
        requireSignedAmzHeaders(request, claim.signedHeaders());
        String canonical;
        try {
            canonical = CanonicalRequest.of(request, claim.signedHeaders(), claim.payloadHash(), claim.presigned());
        } catch (IllegalArgumentException e) {
            throw new S3Error(ErrorCode.SIGNATURE_DOES_NOT_MATCH, e.getMessage(), e);
        }
        String stringToSign = AuthorizationHeader.ALGORITHM + '\n' + claim.amzDate() + '\n' + claim.scope().scope() + '\n'
                + Hashes.sha256Hex(canonical);
        String expected = HexFormat.of().formatHex(Hashes.hmacSha256(claim.key().signingKey(claim.scope()), stringToSign));
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), claim.signature().getBytes(StandardCharsets.US_ASCII))) {
            throw new S3Error(ErrorCode.SIGNATURE_DOES_NOT_MATCH, "the request signature we calculated does not match the signature you"
                    + " provided; check the secret key of " + claim.key().accessKeyId() + " and the signing method")
                    .with("AWSAccessKeyId", claim.key().accessKeyId()).with("StringToSign", stringToSign)
                    .with("SignatureProvided", claim.signature()).with("CanonicalRequest", canonical);
        }
        if (!request.method().equals("GET") && !request.method().equals("HEAD") || claim.payloadHash().equals(UNSIGNED_PAYLOAD)
                || claim.payloadHash().equals(Hashes.EMPTY_SHA256)) {
            return Optional.of(claim.key().accessKeyId());
        }
        throw new S3Error(ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH, "x-amz-content-sha256 is '" + claim.payloadHash() + "', but a "
                + request.method() + " has no body: send " + UNSIGNED_PAYLOAD + " or " + Hashes.EMPTY_SHA256);
    }

    private Claim fromHeader(S3Request request, String authorization) {
        if (authorization.startsWith("AWS ")) {
            throw new S3Error(ErrorCode.INVALID_REQUEST, "Signature Version 2 is not supported; sign with AWS4-HMAC-SHA256");
        }
        AuthorizationHeader header;
        try {
            header = AuthorizationHeader.parse(authorization);
        } catch (IllegalArgumentException e) {
            throw new S3Error(ErrorCode.AUTHORIZATION_HEADER_MALFORMED, e.getMessage(), e);
        }
        Credentials key = key(header.credential());
        String amzDate = request.header("x-amz-date");
        Instant signedAt;
        if (amzDate != null) {
            signedAt = parseAmzDate(amzDate).orElseThrow(() -> new S3Error(ErrorCode.ACCESS_DENIED,
                    "x-amz-date '" + amzDate + "' is not of the form yyyyMMdd'T'HHmmss'Z'"));
        } else {
            signedAt = parseHttpDate(request.header("date")).orElseThrow(() -> new S3Error(ErrorCode.ACCESS_DENIED,
                    "Signature Version 4 needs a valid x-amz-date (yyyyMMdd'T'HHmmss'Z') or Date header"));
        }
        String signedDate = AMZ_DATE.format(signedAt.atOffset(ZoneOffset.UTC));
        if (!header.credential().date().equals(signedDate.substring(0, 8))) {
            throw new S3Error(ErrorCode.AUTHORIZATION_HEADER_MALFORMED, "the credential's date " + header.credential().date()
                    + " is not the request's date " + signedDate.substring(0, 8));
        }
        Duration skew = Duration.between(signedAt, clock.instant()).abs();
        if (skew.compareTo(MAX_CLOCK_SKEW) > 0) {
            throw new S3Error(ErrorCode.REQUEST_TIME_TOO_SKEWED, "the request was signed at " + signedAt + ", " + skew.toSeconds()
                    + " s from this server's time " + clock.instant() + "; at most " + MAX_CLOCK_SKEW.toMinutes() + " minutes are allowed")
                    .with("RequestTime", signedDate).with("ServerTime", clock.instant().toString())
                    .with("MaxAllowedSkewMilliseconds", Long.toString(MAX_CLOCK_SKEW.toMillis()));
        }
        String payloadHash = request.header(CONTENT_SHA256);
        return new Claim(key, header.credential(), signedDate, header.signedHeaders(), header.signature(),
                payloadHash == null ? Hashes.EMPTY_SHA256 : payloadHash, false);
    }

    private Claim fromQuery(S3Request request) {
        QueryString query = request.query();
        for (String required : List.of("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders",
                CanonicalRequest.SIGNATURE_PARAMETER)) {
            if (!query.has(required)) {
                throw queryError("a presigned URL needs X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders"
                        + " and X-Amz-Signature; " + required + " is missing");
            }
        }
        String algorithm = query.first("X-Amz-Algorithm").orElseThrow();
        if (!algorithm.equals(AuthorizationHeader.ALGORITHM)) {
            throw queryError("X-Amz-Algorithm is '" + algorithm + "'; only " + AuthorizationHeader.ALGORITHM + " is supported");
        }
        CredentialScope scope;
        List<String> signedHeaders;
        try {
            scope = CredentialScope.parse(query.first("X-Amz-Credential").orElseThrow());
            signedHeaders = SignedHeaders.parse(query.first("X-Amz-SignedHeaders").orElseThrow());
        } catch (IllegalArgumentException e) {
            throw queryError(e.getMessage());
        }
        Credentials key = key(scope);
        String amzDate = query.first("X-Amz-Date").orElseThrow();
        Instant signedAt = parseAmzDate(amzDate).orElseThrow(() -> queryError("X-Amz-Date '" + amzDate
                + "' is not of the form yyyyMMdd'T'HHmmss'Z'"));
        if (!scope.date().equals(amzDate.substring(0, 8))) {
            throw queryError("the credential's date " + scope.date() + " is not the date of X-Amz-Date " + amzDate);
        }
        long expires = expiresSeconds(query.first("X-Amz-Expires").orElseThrow());
        Instant now = clock.instant();
        Instant expiry = signedAt.plusSeconds(expires);
        if (now.isAfter(expiry)) {
            throw new S3Error(ErrorCode.ACCESS_DENIED, "request has expired: the URL was signed at " + signedAt + " for " + expires
                    + " s, until " + expiry + "; it is now " + now).with("X-Amz-Expires", Long.toString(expires))
                    .with("Expires", expiry.toString()).with("ServerTime", now.toString());
        }
        if (signedAt.isAfter(now.plus(MAX_CLOCK_SKEW))) {
            throw new S3Error(ErrorCode.ACCESS_DENIED, "request is not valid yet: the URL is dated " + signedAt + ", more than "
                    + MAX_CLOCK_SKEW.toMinutes() + " minutes after this server's time " + now);
        }
        return new Claim(key, scope, amzDate, signedHeaders, query.first(CanonicalRequest.SIGNATURE_PARAMETER).orElseThrow(),
                query.first("X-Amz-Content-Sha256").orElse(UNSIGNED_PAYLOAD), true);
    }

    private Credentials key(CredentialScope scope) {
        Credentials key = keys.get(scope.accessKeyId());
        if (key == null) {
            throw new S3Error(ErrorCode.INVALID_ACCESS_KEY_ID, "access key id " + scope.accessKeyId() + " is not known to this gateway")
                    .with("AWSAccessKeyId", scope.accessKeyId());
        }
        return key;
    }

    /** Refuses {@code x-amz-*} headers the signature does not cover, so none can be added to a signed request. */
    private static void requireSignedAmzHeaders(S3Request request, List<String> signedHeaders) {
        List<String> unsigned = request.headers().keySet().stream()
                .filter(name -> name.startsWith("x-amz-") && !signedHeaders.contains(name)).toList();
        if (!unsigned.isEmpty()) {
            throw new S3Error(ErrorCode.ACCESS_DENIED, "there were headers present in the request which were not signed: "
                    + String.join(", ", unsigned)).with("HeadersNotSigned", String.join(", ", unsigned));
        }
    }

    private static long expiresSeconds(String text) {
        long seconds;
        try {
            seconds = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw queryError("X-Amz-Expires '" + text + "' is not a number of seconds");
        }
        if (seconds < 1 || seconds > MAX_EXPIRES_SECONDS) {
            throw queryError("X-Amz-Expires is " + seconds + "; it must be from 1 to " + MAX_EXPIRES_SECONDS + " seconds (a week)");
        }
        return seconds;
    }

    private static S3Error queryError(String message) {
        return new S3Error(ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR, message);
    }

    private static Optional<Instant> parseAmzDate(String text) {
        try {
            return Optional.of(LocalDateTime.parse(text, AMZ_DATE).toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> parseHttpDate(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}

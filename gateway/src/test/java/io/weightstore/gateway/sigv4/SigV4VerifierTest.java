package io.weightstore.gateway.sigv4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.gateway.TestSigner;
import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.S3Error;
import io.weightstore.gateway.s3.S3Request;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class SigV4VerifierTest {
    /** The example key of the S3 API reference's Signature V4 examples. */
    private static final Credentials EXAMPLE = Credentials.of("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    private static final Instant EXAMPLE_TIME = Instant.parse("2013-05-24T00:00:00Z");
    private static final String EXAMPLE_HOST = "examplebucket.s3.amazonaws.com";
    private static final String EXAMPLE_SCOPE = "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request";

    private static final Credentials KEY = Credentials.of("gateway-test", "s3cr3t/with+chars=");
    private static final TestSigner SIGNER = new TestSigner("gateway-test", "s3cr3t/with+chars=", "eu-west-3");
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    private static SigV4Verifier verifier(Credentials key, Instant now) {
        return new SigV4Verifier(List.of(key), Clock.fixed(now, ZoneOffset.UTC));
    }

    private static S3Request request(String method, URI uri, Map<String, String> headers) {
        Map<String, List<String>> all = new HashMap<>();
        headers.forEach((name, value) -> all.put(name, List.of(value)));
        all.put("Host", List.of(uri.getRawAuthority()));
        return new S3Request(method, uri.getRawPath(), QueryString.parse(uri.getRawQuery()), all);
    }

    private static void assertError(ThrowingCallable call, ErrorCode code, String messagePart) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Error.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(messagePart);
        });
    }

    // ---- the examples the S3 API reference publishes, with their signatures

    @Test
    void verifiesThePublishedGetObjectExample() {
        S3Request get = request("GET", URI.create("https://" + EXAMPLE_HOST + "/test.txt"), Map.of("Range", "bytes=0-9",
                "x-amz-content-sha256", TestSigner.EMPTY_SHA256, "x-amz-date", "20130524T000000Z", "Authorization",
                "AWS4-HMAC-SHA256 Credential=" + EXAMPLE_SCOPE + ",SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                        + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
        assertThat(verifier(EXAMPLE, EXAMPLE_TIME).verify(get)).contains("AKIAIOSFODNN7EXAMPLE");
    }

    @Test
    void verifiesThePublishedListObjectsExample() {
        S3Request list = request("GET", URI.create("https://" + EXAMPLE_HOST + "/?max-keys=2&prefix=J"), Map.of(
                "x-amz-content-sha256", TestSigner.EMPTY_SHA256, "x-amz-date", "20130524T000000Z", "Authorization",
                "AWS4-HMAC-SHA256 Credential=" + EXAMPLE_SCOPE + ",SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                        + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
        assertThat(verifier(EXAMPLE, EXAMPLE_TIME).verify(list)).contains("AKIAIOSFODNN7EXAMPLE");
    }

    @Test
    void verifiesThePublishedPresignedUrlUntilItExpires() {
        URI url = URI.create("https://" + EXAMPLE_HOST + "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
                + EXAMPLE_SCOPE.replace("/", "%2F") + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
        assertThat(verifier(EXAMPLE, EXAMPLE_TIME).verify(request("GET", url, Map.of()))).contains("AKIAIOSFODNN7EXAMPLE");
        assertThat(verifier(EXAMPLE, EXAMPLE_TIME.plusSeconds(86_400)).verify(request("GET", url, Map.of()))).isPresent();
        assertError(() -> verifier(EXAMPLE, EXAMPLE_TIME.plusSeconds(86_401)).verify(request("GET", url, Map.of())),
                ErrorCode.ACCESS_DENIED, "request has expired");
        URI tampered = URI.create(url.toString().replace("test.txt", "test.txu"));
        assertError(() -> verifier(EXAMPLE, EXAMPLE_TIME).verify(request("GET", tampered, Map.of())),
                ErrorCode.SIGNATURE_DOES_NOT_MATCH, "does not match");
    }

    // ---- signatures made by a client signer

    @Test
    void acceptsSignedAndUnsignedPayloadsAndRefusesAWrongSecret() {
        URI uri = URI.create("http://127.0.0.1:9000/weights/ckpt/config.json");
        for (String payload : List.of(TestSigner.EMPTY_SHA256, SigV4Verifier.UNSIGNED_PAYLOAD)) {
            assertThat(verifier(KEY, NOW).verify(request("GET", uri, SIGNER.sign("GET", uri, Map.of(), NOW, payload))))
                    .contains("gateway-test");
        }
        Map<String, String> forged = new TestSigner("gateway-test", "not-the-secret", "eu-west-3").sign("GET", uri, Map.of(), NOW,
                TestSigner.EMPTY_SHA256);
        assertThatThrownBy(() -> verifier(KEY, NOW).verify(request("GET", uri, forged))).isInstanceOfSatisfying(S3Error.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SIGNATURE_DOES_NOT_MATCH);
            assertThat(e.details()).containsKeys("StringToSign", "CanonicalRequest").containsEntry("AWSAccessKeyId", "gateway-test");
            assertThat(e.getMessage() + e.details()).doesNotContain("s3cr3t");
        });
    }

    @Test
    void canonicalizesWhatTheClientEncodedItsOwnWay() {
        // Signed as the spec encodes: everything but unreserved characters escaped, query sorted.
        URI signedAs = URI.create("http://127.0.0.1:9000/weights/ckpt/notes/a%20b%2Bc%21%C3%BC.txt?prefix=a%2Fb&list-type=2");
        Map<String, String> headers = SIGNER.sign("GET", signedAs, Map.of("Range", "bytes=0-9"), NOW, TestSigner.EMPTY_SHA256);
        // Sent with '!' left alone, lower-case hex, and the query in another order.
        URI sentAs = URI.create("http://127.0.0.1:9000/weights/ckpt/notes/a%20b%2bc!%c3%bc.txt?list-type=2&prefix=a%2fb");
        assertThat(verifier(KEY, NOW).verify(request("GET", sentAs, headers))).contains("gateway-test");
    }

    @Test
    void refusesSignaturesOutsideTheClockSkewAndUnknownKeys() {
        URI uri = URI.create("http://127.0.0.1:9000/weights");
        Map<String, String> old = SIGNER.sign("GET", uri, Map.of(), NOW.minus(Duration.ofMinutes(16)), TestSigner.EMPTY_SHA256);
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, old)), ErrorCode.REQUEST_TIME_TOO_SKEWED, "at most 15 minutes");
        Map<String, String> recent = SIGNER.sign("GET", uri, Map.of(), NOW.minus(Duration.ofMinutes(14)), TestSigner.EMPTY_SHA256);
        assertThat(verifier(KEY, NOW).verify(request("GET", uri, recent))).isPresent();
        Map<String, String> stranger = new TestSigner("someone-else", "x", "us-east-1").sign("GET", uri, Map.of(), NOW,
                TestSigner.EMPTY_SHA256);
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, stranger)), ErrorCode.INVALID_ACCESS_KEY_ID, "someone-else");
    }

    @Test
    void presignedUrlsExpireAndMayNotComeFromTheFuture() {
        URI uri = URI.create("http://127.0.0.1:9000/weights/ckpt/model.safetensors");
        URI url = SIGNER.presign("GET", uri, NOW, 600);
        assertThat(verifier(KEY, NOW.plusSeconds(600)).verify(request("GET", url, Map.of()))).isPresent();
        assertError(() -> verifier(KEY, NOW.plusSeconds(601)).verify(request("GET", url, Map.of())), ErrorCode.ACCESS_DENIED,
                "request has expired");
        assertError(() -> verifier(KEY, NOW.minus(Duration.ofMinutes(16))).verify(request("GET", url, Map.of())),
                ErrorCode.ACCESS_DENIED, "not valid yet");
        URI week = SIGNER.presign("GET", uri, NOW, 604_801);
        assertError(() -> verifier(KEY, NOW).verify(request("GET", week, Map.of())), ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR,
                "604800");
        URI unsigned = URI.create(url.toString().replaceAll("&X-Amz-Signature=[0-9a-f]+", ""));
        assertError(() -> verifier(KEY, NOW).verify(request("GET", unsigned, Map.of())),
                ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR, "X-Amz-Signature is missing");
    }

    @Test
    void refusesHeadersAddedAfterSigningAndMalformedAuthorization() {
        URI uri = URI.create("http://127.0.0.1:9000/weights/ckpt/config.json");
        Map<String, String> signed = new HashMap<>(SIGNER.sign("GET", uri, Map.of(), NOW, TestSigner.EMPTY_SHA256));
        signed.put("x-amz-checksum-mode", "ENABLED");
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, signed)), ErrorCode.ACCESS_DENIED, "x-amz-checksum-mode");

        Map<String, String> malformed = Map.of("x-amz-date", "20260301T120000Z", "Authorization",
                "AWS4-HMAC-SHA256 Credential=gateway-test/20260301/us-east-1/s3/aws4_request, Signature=00");
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, malformed)), ErrorCode.AUTHORIZATION_HEADER_MALFORMED,
                "no SignedHeaders");
        Map<String, String> sigV2 = Map.of("Authorization", "AWS gateway-test:c2lnbmF0dXJl");
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, sigV2)), ErrorCode.INVALID_REQUEST, "Version 2");

        URI both = SIGNER.presign("GET", uri, NOW, 60);
        assertError(() -> verifier(KEY, NOW).verify(request("GET", both, SIGNER.sign("GET", uri, Map.of(), NOW, TestSigner.EMPTY_SHA256))),
                ErrorCode.INVALID_ARGUMENT, "only one auth mechanism");
    }

    @Test
    void unsignedRequestsAreLeftToTheCaller() {
        assertThat(verifier(KEY, NOW).verify(request("GET", URI.create("http://127.0.0.1:9000/weights"), Map.of()))).isEmpty();
    }

    @Test
    void aGetWithABodyHashIsRefused() {
        URI uri = URI.create("http://127.0.0.1:9000/weights/ckpt/config.json");
        String someHash = "a".repeat(64);
        assertError(() -> verifier(KEY, NOW).verify(request("GET", uri, SIGNER.sign("GET", uri, Map.of(), NOW, someHash))),
                ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH, "has no body");
    }

    @Test
    void credentialsNeverShowTheSecret() {
        assertThat(KEY.toString()).contains("gateway-test").doesNotContain("s3cr3t");
        assertThatThrownBy(() -> Credentials.of("bad/id", "secret")).hasMessageContaining("bad/id");
        assertThatThrownBy(() -> Credentials.of("id", " ")).hasMessageContaining("must not be empty");
    }
}

package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.CheckpointRemover;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.ManifestFile;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway over HTTP, with the JDK's client and a test signer: every operation, header and error, byte for byte. */
class GatewayHttpTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final TestSigner SIGNER = new TestSigner(GatewayFixture.ACCESS_KEY, GatewayFixture.SECRET_KEY, "us-east-1");
    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");

    @TempDir
    static Path tmp;

    private static GatewayFixture fixture;
    private static ManifestFile shard;

    @BeforeAll
    static void start() throws IOException {
        fixture = GatewayFixture.start(tmp);
        shard = fixture.manifest.files().stream().filter(ManifestFile::isSafetensors).max((a, b) -> Long.compare(a.size(), b.size()))
                .orElseThrow();
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    private static HttpResponse<byte[]> signed(String method, String pathAndQuery, Map<String, String> headers) throws Exception {
        URI uri = fixture.uri(pathAndQuery);
        return send(method, uri, SIGNER.sign(method, uri, headers, Instant.now(), TestSigner.EMPTY_SHA256));
    }

    private static HttpResponse<byte[]> send(String method, URI uri, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String key(ManifestFile file) {
        return "/weights/" + GatewayFixture.CHECKPOINT + "/" + file.path();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static void assertError(HttpResponse<byte[]> response, int status, String code) {
        assertThat(response.statusCode()).as(text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/xml");
        Matcher matcher = CODE.matcher(text(response));
        assertThat(matcher.find()).as(text(response)).isTrue();
        assertThat(matcher.group(1)).isEqualTo(code);
        assertThat(text(response)).contains("<RequestId>" + response.headers().firstValue("x-amz-request-id").orElseThrow());
    }

    private static List<String> all(String xml, String element) {
        Matcher matcher = Pattern.compile("<" + element + ">([^<]*)</" + element + ">").matcher(xml);
        List<String> values = new ArrayList<>();
        while (matcher.find()) {
            values.add(matcher.group(1));
        }
        return values;
    }

    @Test
    void getsWholeObjectsWithTheirHeaders() throws Exception {
        HttpResponse<byte[]> response = signed("GET", key(shard), Map.of());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(Files.readAllBytes(fixture.local(shard.path())));
        assertThat(response.headers().firstValue("ETag")).contains('"' + shard.sha256() + '"');
        assertThat(response.headers().firstValue("Content-Length")).contains(Long.toString(shard.size()));
        assertThat(response.headers().firstValue("Accept-Ranges")).contains("bytes");
        assertThat(response.headers().firstValue("Content-Type")).contains("application/octet-stream");
        assertThat(response.headers().firstValue("Last-Modified")).hasValueSatisfying(v -> assertThat(v).endsWith(" GMT"));

        HttpResponse<byte[]> config = signed("GET", "/weights/" + GatewayFixture.CHECKPOINT + "/config.json", Map.of());
        assertThat(config.headers().firstValue("Content-Type")).contains("application/json");
        assertThat(config.body()).isEqualTo(Files.readAllBytes(fixture.local("config.json")));
    }

    @Test
    void servesOneRangeOf206AndRefusesUnsatisfiableOnes() throws Exception {
        byte[] whole = Files.readAllBytes(fixture.local(shard.path()));
        long size = whole.length;
        Map<String, long[]> ranges = Map.of("bytes=0-7", new long[] {0, 7}, "bytes=100000-", new long[] {100_000, size - 1},
                "bytes=-5", new long[] {size - 5, size - 1}, "bytes=10-99999999999999999999", new long[] {10, size - 1});
        for (Map.Entry<String, long[]> range : ranges.entrySet()) {
            HttpResponse<byte[]> response = signed("GET", key(shard), Map.of("Range", range.getKey()));
            long first = range.getValue()[0];
            long last = range.getValue()[1];
            assertThat(response.statusCode()).as(range.getKey()).isEqualTo(206);
            assertThat(response.headers().firstValue("Content-Range")).contains("bytes " + first + "-" + last + "/" + size);
            assertThat(response.body()).as(range.getKey()).isEqualTo(Arrays.copyOfRange(whole, (int) first, (int) last + 1));
        }
        HttpResponse<byte[]> past = signed("GET", key(shard), Map.of("Range", "bytes=" + size + "-"));
        assertError(past, 416, "InvalidRange");
        assertThat(past.headers().firstValue("Content-Range")).contains("bytes */" + size);
        assertError(signed("GET", key(shard), Map.of("Range", "bytes=-0")), 416, "InvalidRange");
        assertError(signed("GET", key(shard), Map.of("Range", "bytes=0-1,4-5")), 400, "InvalidArgument");
        // Not a byte range at all: ignored, as RFC 9110 says, and the whole object served.
        assertThat(signed("GET", key(shard), Map.of("Range", "lines=1-2")).statusCode()).isEqualTo(200);
    }

    @Test
    void partOneIsTheWholeObjectAndNoOtherPartIsSatisfiable() throws Exception {
        byte[] whole = Files.readAllBytes(fixture.local(shard.path()));
        for (String method : new String[] {"GET", "HEAD"}) {
            HttpResponse<byte[]> part = signed(method, key(shard) + "?partNumber=1", Map.of("x-amz-checksum-mode", "ENABLED"));
            assertThat(part.statusCode()).as(method).isEqualTo(206);
            assertThat(part.headers().firstValue("Content-Range")).contains("bytes 0-" + (whole.length - 1) + "/" + whole.length);
            assertThat(part.headers().firstValue("Content-Length")).contains(Integer.toString(whole.length));
            assertThat(part.headers().firstValue("x-amz-checksum-sha256")).isPresent();
            assertThat(part.body()).isEqualTo(method.equals("GET") ? whole : new byte[0]);
        }
        HttpResponse<byte[]> second = signed("GET", key(shard) + "?partNumber=2", Map.of());
        assertError(second, 416, "InvalidPartNumber");
        assertThat(text(second)).contains("<PartNumberRequested>2</PartNumberRequested>");
        assertError(signed("GET", key(shard) + "?partNumber=0", Map.of()), 400, "InvalidArgument");
        assertError(signed("GET", key(shard) + "?partNumber=one", Map.of()), 400, "InvalidArgument");
        assertError(signed("GET", key(shard) + "?partNumber=10001", Map.of()), 400, "InvalidArgument");
        assertError(signed("GET", key(shard) + "?partNumber=1", Map.of("Range", "bytes=0-7")), 400, "InvalidRequest");
    }

    @Test
    void headAnswersWithHeadersOnly() throws Exception {
        HttpResponse<byte[]> head = signed("HEAD", key(shard), Map.of());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("Content-Length")).contains(Long.toString(shard.size()));
        assertThat(head.headers().firstValue("ETag")).contains('"' + shard.sha256() + '"');
        HttpResponse<byte[]> missing = signed("HEAD", "/weights/" + GatewayFixture.CHECKPOINT + "/nope.bin", Map.of());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).isEmpty();
        HttpResponse<byte[]> bucket = signed("HEAD", "/weights", Map.of());
        assertThat(bucket.statusCode()).isEqualTo(200);
        assertThat(signed("HEAD", "/other-bucket", Map.of()).statusCode()).isEqualTo(404);
    }

    @Test
    void conditionalRequestsFollowTheEtag() throws Exception {
        String etag = '"' + shard.sha256() + '"';
        HttpResponse<byte[]> notModified = signed("GET", key(shard), Map.of("If-None-Match", etag));
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.headers().firstValue("ETag")).contains(etag);
        // A 304's Content-Length would have to be the length of the object it does not send.
        assertThat(notModified.headers().firstValue("Content-Length")).isEmpty();
        assertThat(signed("GET", key(shard), Map.of("If-Match", etag, "Range", "bytes=0-0")).statusCode()).isEqualTo(206);
        assertError(signed("GET", key(shard), Map.of("If-Match", "\"0000\"")), 412, "PreconditionFailed");
        HttpResponse<byte[]> changed = signed("GET", key(shard), Map.of("If-Range", "\"0000\"", "Range", "bytes=0-0"));
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).hasSize((int) shard.size());
    }

    @Test
    void answersS3ErrorsWithTheirStatusAndCode() throws Exception {
        assertError(signed("GET", "/weights/" + GatewayFixture.CHECKPOINT + "/no-such-file.bin", Map.of()), 404, "NoSuchKey");
        assertError(signed("GET", "/weights/no-such-checkpoint/config.json", Map.of()), 404, "NoSuchKey");
        assertError(signed("GET", "/weights/" + GatewayFixture.HIDDEN + "/config.json", Map.of()), 404, "NoSuchKey");
        assertError(signed("GET", "/other-bucket/" + GatewayFixture.CHECKPOINT + "/config.json", Map.of()), 404, "NoSuchBucket");
        assertError(signed("GET", "/other-bucket?list-type=2", Map.of()), 404, "NoSuchBucket");
        assertError(send("GET", fixture.uri(key(shard)), Map.of()), 403, "AccessDenied");

        URI uri = fixture.uri(key(shard));
        Map<String, String> forged = new TestSigner(GatewayFixture.ACCESS_KEY, "wrong-secret", "us-east-1").sign("GET", uri, Map.of(),
                Instant.now(), TestSigner.EMPTY_SHA256);
        HttpResponse<byte[]> bad = send("GET", uri, forged);
        assertError(bad, 403, "SignatureDoesNotMatch");
        assertThat(text(bad)).contains("<CanonicalRequest>GET\n/weights/").doesNotContain(GatewayFixture.SECRET_KEY);
        Map<String, String> stranger = new TestSigner("nobody", "x", "us-east-1").sign("GET", uri, Map.of(), Instant.now(),
                TestSigner.EMPTY_SHA256);
        assertError(send("GET", uri, stranger), 403, "InvalidAccessKeyId");

        HttpResponse<byte[]> put = signed("PUT", key(shard), Map.of());
        assertError(put, 405, "MethodNotAllowed");
        assertThat(put.headers().firstValue("Allow")).contains("GET, HEAD");
        assertError(signed("DELETE", "/weights", Map.of()), 405, "MethodNotAllowed");
        assertError(signed("GET", "/weights?versioning", Map.of()), 501, "NotImplemented");
        assertError(signed("GET", "/weights?list-type=2&max-keys=-1", Map.of()), 400, "InvalidArgument");
    }

    @Test
    void presignedUrlsWorkUntilTheyExpire() throws Exception {
        URI url = SIGNER.presign("GET", fixture.uri(key(shard)), Instant.now(), 60);
        HttpResponse<byte[]> response = send("GET", url, Map.of("Range", "bytes=0-7"));
        assertThat(response.statusCode()).isEqualTo(206);
        assertThat(response.body()).isEqualTo(Arrays.copyOf(Files.readAllBytes(fixture.local(shard.path())), 8));
        URI expired = SIGNER.presign("GET", fixture.uri(key(shard)), Instant.now().minusSeconds(120), 60);
        assertError(send("GET", expired, Map.of()), 403, "AccessDenied");
    }

    @Test
    void keysThatNeedEncodingAreServed() throws Exception {
        String encoded = "/weights/" + GatewayFixture.CHECKPOINT + "/"
                + URLEncoder.encode(GatewayFixture.ODD_NAME, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
        HttpResponse<byte[]> response = signed("GET", encoded, Map.of());
        assertThat(response.statusCode()).as(text(response)).isEqualTo(200);
        assertThat(response.body()).isEqualTo(Files.readAllBytes(fixture.local(GatewayFixture.ODD_NAME)));
    }

    @Test
    void aCheckpointWhoseManifestCannotBeTrustedIsServedAsNoneAndItsWriterIsNotNamed() throws Exception {
        HttpResponse<byte[]> listed = signed("GET", "/weights?list-type=2&prefix=" + GatewayFixture.TAMPERED + "%2F", Map.of());
        assertThat(listed.statusCode()).as(text(listed)).isEqualTo(200);
        assertThat(all(text(listed), "Key")).isEmpty();
        HttpResponse<byte[]> file = signed("GET", "/weights/" + GatewayFixture.TAMPERED + "/config.json", Map.of());
        assertError(file, 404, "NoSuchKey");
        assertThat(text(file)).doesNotContain("imported by");
    }

    @Test
    void theLastBytesOfAnEmptyFileAreAnsweredWithTheWholeOfIt() throws Exception {
        HttpResponse<byte[]> response = signed("GET", "/weights/" + GatewayFixture.CHECKPOINT + "/" + GatewayFixture.EMPTY_NAME,
                Map.of("Range", "bytes=-16"));
        assertThat(response.statusCode()).as(text(response)).isEqualTo(200);
        assertThat(response.body()).isEmpty();
    }

    @Test
    void listsBucketsAndTheLocation() throws Exception {
        HttpResponse<byte[]> buckets = signed("GET", "/", Map.of());
        assertThat(buckets.statusCode()).isEqualTo(200);
        assertThat(all(text(buckets), "Name")).containsExactly("weights");
        HttpResponse<byte[]> location = signed("GET", "/weights?location", Map.of());
        assertThat(text(location)).contains("<LocationConstraint xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"></LocationConstraint>");
    }

    @Test
    void listsObjectsWithPrefixDelimiterAndPages() throws Exception {
        HttpResponse<byte[]> roots = signed("GET", "/weights?list-type=2&delimiter=%2F", Map.of());
        assertThat(all(text(roots), "Prefix")).contains(GatewayFixture.CHECKPOINT + "/").doesNotContain(GatewayFixture.HIDDEN + "/")
                .as("a checkpoint whose manifest names another importer than its writer").doesNotContain(GatewayFixture.TAMPERED + "/");

        HttpResponse<byte[]> files = signed("GET", "/weights?list-type=2&prefix=" + GatewayFixture.CHECKPOINT + "%2F&delimiter=%2F",
                Map.of());
        String xml = text(files);
        assertThat(all(xml, "Key")).contains(GatewayFixture.CHECKPOINT + "/config.json").noneMatch(k -> k.contains("notes/"));
        assertThat(all(xml, "Prefix")).contains(GatewayFixture.CHECKPOINT + "/notes/");
        assertThat(all(xml, "ETag")).contains("&quot;" + shard.sha256() + "&quot;");

        // Every key, two a page, through continuation tokens; and version 1, through markers.
        List<String> paged = new ArrayList<>();
        String token = null;
        do {
            String xmlPage = text(signed("GET", "/weights?list-type=2&max-keys=2" + (token == null ? ""
                    : "&continuation-token=" + token), Map.of()));
            paged.addAll(all(xmlPage, "Key"));
            assertThat(all(xmlPage, "KeyCount").getFirst()).isIn("1", "2");
            token = all(xmlPage, "NextContinuationToken").stream().findFirst().orElse(null);
        } while (token != null);
        assertThat(paged).containsExactlyElementsOf(fixture.keys());

        List<String> v1 = new ArrayList<>();
        String marker = "";
        while (true) {
            String xmlPage = text(signed("GET", "/weights?max-keys=3&marker=" + URLEncoder.encode(marker, StandardCharsets.UTF_8)
                    .replace("+", "%20"), Map.of()));
            v1.addAll(all(xmlPage, "Key"));
            if (!xmlPage.contains("<IsTruncated>true</IsTruncated>")) {
                break;
            }
            marker = all(xmlPage, "NextMarker").getFirst();
        }
        assertThat(v1).containsExactlyElementsOf(fixture.keys());

        HttpResponse<byte[]> encoded = signed("GET", "/weights?list-type=2&encoding-type=url&prefix=" + GatewayFixture.CHECKPOINT
                + "%2Fnotes", Map.of());
        assertThat(all(text(encoded), "Key")).containsExactly(GatewayFixture.CHECKPOINT + "%2Fnotes%2Fa%20b%2Bc%20%C3%BC.txt");
    }

    @Test
    void anAnonymousGatewayServesUnsignedRequestsAndStillChecksSignatures() throws Exception {
        HttpResponse<byte[]> open = send("GET", fixture.anonymousUri(key(shard)), Map.of("Range", "bytes=0-7"));
        assertThat(open.statusCode()).isEqualTo(206);
        URI uri = fixture.anonymousUri(key(shard));
        assertError(send("GET", uri, SIGNER.sign("GET", uri, Map.of(), Instant.now(), TestSigner.EMPTY_SHA256)), 403,
                "InvalidAccessKeyId");
        assertError(send("GET", fixture.anonymousUri(key(shard) + "?response-content-type=text%2Fplain"), Map.of()), 400,
                "InvalidRequest");
    }

    @Test
    void aReplacedOrDeletedCheckpointIsSeenAtOnce() throws Exception {
        Path first = tmp.resolve("v1");
        Path second = tmp.resolve("v2");
        Files.createDirectories(first);
        Files.createDirectories(second);
        Files.writeString(first.resolve("config.json"), "{\"version\": 1}");
        Files.writeString(second.resolve("config.json"), "{\"version\": 2}");
        Catalog catalog = new Catalog(fixture.store);
        CheckpointId id = new CheckpointId("replaced");
        new CheckpointImporter(catalog).run(new ImportRequest(id, "org/replaced", "v1", first, 1, false, 1), Progress.NONE);
        HttpResponse<byte[]> before = signed("GET", "/weights/replaced/config.json", Map.of());
        assertThat(text(before)).isEqualTo("{\"version\": 1}");

        new CheckpointImporter(catalog).run(new ImportRequest(id, "org/replaced", "v2", second, 1, true, 1), Progress.NONE);
        HttpResponse<byte[]> after = signed("GET", "/weights/replaced/config.json", Map.of());
        assertThat(text(after)).isEqualTo("{\"version\": 2}");
        assertThat(after.headers().firstValue("ETag")).isNotEqualTo(before.headers().firstValue("ETag"));

        LeasedDeletes.deleteOnceNotRead(catalog, id);
        assertError(signed("GET", "/weights/replaced/config.json", Map.of()), 404, "NoSuchKey");
    }

    /** A file put over behind its manifest's back is refused as the loader refuses it, not served. */
    @Test
    void aFileReplacedBehindItsManifestIsRefused() throws Exception {
        withOneFileCheckpoint("tampered", () -> {
            fixture.store.put("weights/tampered/files/config.json", "{\"version\": 6}".getBytes(StandardCharsets.UTF_8),
                    PutOptions.defaults().withReplace(true).withPin(true));
            HttpResponse<byte[]> response = signed("GET", "/weights/tampered/config.json", Map.of());
            assertError(response, 500, "InternalError");
            assertThat(text(response)).contains("stored config.json of tampered has other bytes than the import stored")
                    .doesNotContain("6}");
        });
    }

    /** A file removed behind its manifest's back is lost, not absent: a 404 would tell a client there is no such file. */
    @Test
    void aFileRemovedBehindItsManifestIsAnInternalError() throws Exception {
        withOneFileCheckpoint("lost", () -> {
            fixture.store.remove("weights/lost/files/config.json", true);
            HttpResponse<byte[]> response = signed("GET", "/weights/lost/config.json", Map.of());
            assertError(response, 500, "InternalError");
            assertThat(text(response)).contains("checkpoint lost names config.json, but the store has no object for it");
        });
    }

    /** What a test does to a checkpoint of its own. */
    @FunctionalInterface
    private interface CheckpointTest {
        void run() throws Exception;
    }

    /** Runs {@code test} with checkpoint {@code name} holding one config.json, and removes the checkpoint after. */
    private void withOneFileCheckpoint(String name, CheckpointTest test) throws Exception {
        Path source = tmp.resolve(name);
        Files.createDirectories(source);
        Files.writeString(source.resolve("config.json"), "{\"version\": 1}");
        Catalog catalog = new Catalog(fixture.store);
        CheckpointId id = new CheckpointId(name);
        new CheckpointImporter(catalog).run(new ImportRequest(id, "org/" + name, "v1", source, 1, false, 1), Progress.NONE);
        try {
            test.run();
        } finally {
            // The bucket is shared by every test here: the listings expect only the fixture's checkpoint.
            new CheckpointRemover(catalog).run(id, true);
        }
    }

    @Test
    void responseOverridesSetTheirHeaders() throws Exception {
        HttpResponse<byte[]> response = signed("GET", key(shard) + "?response-content-disposition=attachment%3B%20filename%3Dx.bin",
                Map.of("Range", "bytes=0-0"));
        assertThat(response.headers().firstValue("Content-Disposition")).contains("attachment; filename=x.bin");
    }

    @Test
    void aResponseOverrideNoHeaderMayHoldIsRefusedInvalidArgument() throws Exception {
        HttpResponse<byte[]> response = signed("GET", key(shard) + "?response-content-disposition=a%0D%0AX-Injected%3A%20b", Map.of());
        assertError(response, 400, "InvalidArgument");
        assertThat(response.headers().firstValue("X-Injected")).isEmpty();
        assertThat(response.headers().firstValue("ETag")).as("no header of the object on an error").isEmpty();
    }
}

package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.S3Request;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestTargetTest {
    private static RequestTarget target(String host, String rawPath, String bucket) {
        return target("GET", host, rawPath, null, bucket);
    }

    private static RequestTarget target(String method, String host, String rawPath, String query, String bucket) {
        return RequestTarget.of(new S3Request(method, rawPath, QueryString.parse(query), Map.of("Host", List.of(host))), bucket);
    }

    @Test
    void pathStyleNamesTheBucketFirst() {
        assertThat(target("127.0.0.1:9000", "/", "weights")).isEqualTo(new RequestTarget.Service());
        assertThat(target("127.0.0.1:9000", "/weights", "weights")).isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("127.0.0.1:9000", "/weights/", "weights")).isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("gw:9000", "/weights/ckpt/a%20b%2Bc.txt", "weights"))
                .isEqualTo(new RequestTarget.Key("weights", "ckpt/a b+c.txt"));
    }

    @Test
    void virtualHostedStyleNamesTheBucketInTheHostButAnAddressNeverDoes() {
        assertThat(target("weights.gw.example:9000", "/", "weights")).as("s3cmd's first page of a listing")
                .isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("GET", "weights.gw.example:9000", "/", "prefix=ckpt%2F", "weights"))
                .isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("GET", "weights.gw.example:9000", "/", "list-type=2&prefix=ckpt%2F", "weights"))
                .isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("GET", "weights.gw.example:9000", "/", "encoding-type=url", "weights"))
                .isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("HEAD", "weights.gw.example:9000", "/", null, "weights")).isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("weights.gw.example:9000", "/ckpt/config.json", "weights"))
                .isEqualTo(new RequestTarget.Key("weights", "ckpt/config.json"));
        assertThat(target("127.0.0.1:9000", "/127/ckpt/config.json", "127")).isEqualTo(new RequestTarget.Key("127", "ckpt/config.json"));
    }

    @Test
    void aHostNamedAfterTheBucketIsReachedPathStyleToo() {
        assertThat(target("weights.internal.example:9000", "/weights/ckpt/config.json", "weights"))
                .isEqualTo(new RequestTarget.Key("weights", "ckpt/config.json"));
        assertThat(target("weights.internal.example:9000", "/weights", "weights")).isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("weights.internal.example:9000", "/weights/", "weights")).isEqualTo(new RequestTarget.Bucket("weights"));
        assertThat(target("weights.internal.example:9000", "/weightsx/config.json", "weights"))
                .isEqualTo(new RequestTarget.Key("weights", "weightsx/config.json"));
    }

    /** A bare {@code GET /} there is a bucket's listing (above): only what ListBuckets alone carries makes it the service's. */
    @Test
    void aListOfBucketsOnAHostNamedAfterTheBucketIsTheServicesWhenItSaysSo() {
        assertThat(target("GET", "weights.internal:9000", "/", "x-id=ListBuckets", "weights")).isEqualTo(new RequestTarget.Service());
        assertThat(target("GET", "weights.internal:9000", "/", "max-buckets=1000", "weights")).isEqualTo(new RequestTarget.Service());
        assertThat(target("GET", "weights.internal:9000", "/", "x-id=ListObjects", "weights"))
                .isEqualTo(new RequestTarget.Bucket("weights"));
    }

    @Test
    void aPathThatDoesNotDecodeIsAnInvalidUri() {
        assertThatThrownBy(() -> target("gw", "/weights/%zz", "weights")).hasMessageContaining("does not decode");
    }
}

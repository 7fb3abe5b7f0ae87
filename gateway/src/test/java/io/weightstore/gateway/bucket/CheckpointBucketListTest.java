package io.weightstore.gateway.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.gateway.s3.ListPage;
import io.weightstore.gateway.s3.ListRequest;
import io.weightstore.gateway.s3.ObjectInfo;
import io.weightstore.gateway.s3.QueryString;
import io.weightstore.gateway.s3.UriEncoding;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing reads no more checkpoints than its page needs, and pages through to exactly what the whole bucket, listed
 * at once, gives: with checkpoint ids that sort otherwise than their keys do ({@code a-b/} before {@code a/}, {@code a_b/}
 * after {@code ab/}), with and without the delimiter, a page at a time of every size.
 */
class CheckpointBucketListTest {
    private static final List<String> IDS = List.of("a", "a-b", "a.b", "ab", "a_b", "b");

    @TempDir
    static Path tmp;

    private static StoreClient store;
    private static CheckpointBucket bucket;
    private static int files;

    @BeforeAll
    static void importCheckpoints() throws IOException {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 3), source, b -> {});
        store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults());
        Catalog catalog = new Catalog(store);
        for (String id : IDS) {
            files += new CheckpointImporter(catalog).run(new ImportRequest(new CheckpointId(id), "org/" + id, "main", source, 1, false,
                    2), Progress.NONE).manifest().files().size();
        }
        bucket = new CheckpointBucket("weights", catalog);
    }

    @AfterAll
    static void closeStore() {
        store.close();
    }

    private static ListRequest request(String prefix, String delimiter, int maxKeys, String startAfter) {
        StringBuilder query = new StringBuilder("list-type=2&max-keys=" + maxKeys + "&prefix=" + UriEncoding.encode(prefix, true)
                + "&delimiter=" + UriEncoding.encode(delimiter, true));
        if (startAfter != null) {
            query.append("&start-after=").append(UriEncoding.encode(startAfter, true));
        }
        return ListRequest.parse(QueryString.parse(query.toString()));
    }

    /** Every key and common prefix a client paging with {@code maxKeys} a page gets, in order, pages made from {@code all} or not. */
    private static List<String> walk(String prefix, String delimiter, int maxKeys, List<ObjectInfo> all) throws IOException {
        List<String> listed = new ArrayList<>();
        String after = null;
        while (true) {
            ListRequest request = request(prefix, delimiter, maxKeys, after);
            ListPage page = ListPage.of(all == null ? bucket.list(request) : all, request);
            page.contents().forEach(o -> listed.add(o.key()));
            listed.addAll(page.commonPrefixes());
            if (!page.truncated()) {
                return listed;
            }
            after = page.last().orElseThrow();
        }
    }

    @Test
    void everyPageSizeListsWhatTheWholeBucketListedAtOnceGives() throws IOException {
        List<ObjectInfo> all = bucket.list(request("", "", 1000, null));
        assertThat(all).as("every file of every checkpoint").hasSize(files);
        for (String prefix : List.of("", "a", "a-", "ab", "a/", "b/", "z")) {
            for (String delimiter : List.of("", "/", ".")) {
                List<String> whole = walk(prefix, delimiter, 1000, all);
                for (int maxKeys : new int[] {1, 2, 3, 5, 1000}) {
                    assertThat(walk(prefix, delimiter, maxKeys, null)).as("prefix '%s', delimiter '%s', %d a page", prefix, delimiter,
                            maxKeys).isEqualTo(whole);
                }
            }
        }
    }

    @Test
    void aPageOfCheckpointsTakesOneKeyOfEachUntilItIsFullAndOneMore() throws IOException {
        assertThat(bucket.list(request("", "/", 2, null))).extracting(ObjectInfo::key)
                .as("a key of each of the first three checkpoints in key order")
                .allSatisfy(key -> assertThat(key).matches("(a-b|a\\.b|a)/.*")).hasSize(3);
        assertThat(bucket.list(request("", "", 1, null)).size()).as("keys read for a page of one").isLessThan(files);
    }
}

package io.weightstore.gateway.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.KeyOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ListPageTest {
    private static final List<ObjectInfo> OBJECTS = Stream.of("a-b/x", "a/config.json", "a/notes/one.txt", "a/notes/two.txt",
            "a/w-1.safetensors", "a/w-2.safetensors", "b/config.json", "b\uE000/z", "b\uD83D\uDE00/y")
            .sorted(KeyOrder.UTF8).map(k -> new ObjectInfo(k, 1, "\"e\"", Instant.EPOCH)).toList();

    private static ListPage page(String query) {
        return ListPage.of(OBJECTS, ListRequest.parse(QueryString.parse(query)));
    }

    private static List<String> keys(ListPage page) {
        return page.contents().stream().map(ObjectInfo::key).toList();
    }

    @Test
    void keysSortByTheirUtf8BytesAsS3ListsThem() {
        // U+1F600 (4 UTF-8 bytes, F0...) sorts after U+E000 (EE...), though its UTF-16 surrogates sort before it.
        assertThat(keys(page("prefix=b"))).containsExactly("b/config.json", "b\uE000/z", "b\uD83D\uDE00/y");
    }

    @Test
    void aDelimiterRollsKeysUpIntoCommonPrefixes() {
        ListPage roots = page("list-type=2&delimiter=/");
        assertThat(roots.commonPrefixes()).containsExactly("a-b/", "a/", "b/", "b\uE000/", "b\uD83D\uDE00/");
        assertThat(roots.contents()).isEmpty();
        ListPage a = page("list-type=2&prefix=a/&delimiter=/");
        assertThat(keys(a)).containsExactly("a/config.json", "a/w-1.safetensors", "a/w-2.safetensors");
        assertThat(a.commonPrefixes()).containsExactly("a/notes/");
    }

    @Test
    void pagesContinueAfterWhatTheLastOneEndedWithEvenACommonPrefix() {
        List<String> seen = new ArrayList<>();
        String query = "list-type=2&prefix=a/&delimiter=/&max-keys=1";
        ListPage page = page(query);
        while (true) {
            seen.addAll(keys(page));
            seen.addAll(page.commonPrefixes());
            if (!page.truncated()) {
                break;
            }
            page = page(query + "&continuation-token=" + ListRequest.token(page.last().orElseThrow()));
        }
        assertThat(seen).containsExactly("a/config.json", "a/notes/", "a/w-1.safetensors", "a/w-2.safetensors");
    }

    @Test
    void startAfterAndMarkersSkipWhatSortsAtOrBeforeThem() {
        assertThat(keys(page("list-type=2&start-after=a/notes/one.txt&prefix=a/"))).containsExactly("a/notes/two.txt",
                "a/w-1.safetensors", "a/w-2.safetensors");
        // A key after the marker still rolls up into a prefix that sorts before it.
        assertThat(page("list-type=2&start-after=a/notes/one.txt&prefix=a/&delimiter=/").commonPrefixes()).containsExactly("a/notes/");
        assertThat(keys(page("marker=b/config.json"))).containsExactly("b\uE000/z", "b\uD83D\uDE00/y");
    }

    @Test
    void maxKeysBoundsThePageAndZeroAsksForNone() {
        ListPage two = page("list-type=2&max-keys=2");
        assertThat(keys(two)).containsExactly("a-b/x", "a/config.json");
        assertThat(two.truncated()).isTrue();
        assertThat(two.last()).contains("a/config.json");
        ListPage none = page("list-type=2&max-keys=0");
        assertThat(none.contents()).isEmpty();
        assertThat(none.truncated()).isFalse();
        assertThat(ListRequest.parse(QueryString.parse("max-keys=5000")).maxKeys()).isEqualTo(ListRequest.MAX_KEYS);
    }

    @Test
    void badParametersNameThemselves() {
        assertThatThrownBy(() -> ListRequest.parse(QueryString.parse("max-keys=ten"))).hasMessageContaining("max-keys 'ten'");
        assertThatThrownBy(() -> ListRequest.parse(QueryString.parse("list-type=3"))).hasMessageContaining("list-type '3'");
        assertThatThrownBy(() -> ListRequest.parse(QueryString.parse("encoding-type=base64"))).hasMessageContaining("encoding-type");
        assertThatThrownBy(() -> ListRequest.parse(QueryString.parse("list-type=2&continuation-token=***")))
                .hasMessageContaining("not a token this gateway gave out");
        // Base64 of something else: taken for a key, it would end the listing early with no error.
        assertThatThrownBy(() -> ListRequest.parse(QueryString.parse("list-type=2&continuation-token=garbage")))
                .hasMessageContaining("continuation-token 'garbage' is not a token this gateway gave out");
    }
}

package io.weightstore.gateway.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Range;
import org.junit.jupiter.api.Test;

class ByteRangeTest {
    @Test
    void servesOneRangeInEachForm() {
        assertThat(ByteRange.parse("bytes=0-7", 100)).contains(new Range(0, 8));
        assertThat(ByteRange.parse("bytes=90-", 100)).contains(new Range(90, 10));
        assertThat(ByteRange.parse("bytes=-10", 100)).contains(new Range(90, 10));
        assertThat(ByteRange.parse("bytes=-1000", 100)).contains(new Range(0, 100));
        assertThat(ByteRange.parse("bytes=50-1000", 100)).contains(new Range(50, 50));
        assertThat(ByteRange.parse("Bytes = 1 - 2", 100)).contains(new Range(1, 2));
        assertThat(ByteRange.contentRange(new Range(90, 10), 100)).isEqualTo("bytes 90-99/100");
    }

    @Test
    void ignoresWhatIsNotAByteRange() {
        assertThat(ByteRange.parse(null, 100)).isEmpty();
        assertThat(ByteRange.parse("items=0-1", 100)).isEmpty();
        assertThat(ByteRange.parse("bytes=5-2", 100)).isEmpty();
        assertThat(ByteRange.parse("bytes=-", 100)).isEmpty();
        assertThat(ByteRange.parse("bytes=a-b", 100)).isEmpty();
    }

    @Test
    void refusesUnsatisfiableRangesAndSeveralRanges() {
        for (String header : new String[] {"bytes=100-", "bytes=100-200", "bytes=-0", "bytes=99999999999999999999-"}) {
            assertThatThrownBy(() -> ByteRange.parse(header, 100)).as(header).isInstanceOfSatisfying(S3Error.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_RANGE);
                assertThat(e.headers()).containsEntry("Content-Range", "bytes */100");
            });
        }
        assertThatThrownBy(() -> ByteRange.parse("bytes=0-0", 0)).isInstanceOf(S3Error.class);
        assertThatThrownBy(() -> ByteRange.parse("bytes=-0", 0)).isInstanceOf(S3Error.class);
        assertThatThrownBy(() -> ByteRange.parse("bytes=0-1,5-6", 100))
                .isInstanceOfSatisfying(S3Error.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }

    @Test
    void theLastBytesOfAnEmptyObjectAreTheWholeOfIt() {
        assertThat(ByteRange.parse("bytes=-5", 0)).isEmpty();
    }
}

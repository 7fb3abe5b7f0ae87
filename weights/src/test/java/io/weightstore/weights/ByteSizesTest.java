package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizesTest {
    @Test
    void parsesBinaryUnitsInAnySpelling() {
        assertThat(ByteSizes.parse("1048576")).isEqualTo(1 << 20);
        assertThat(ByteSizes.parse("512M")).isEqualTo(512L << 20);
        assertThat(ByteSizes.parse("4G")).isEqualTo(4L << 30);
        assertThat(ByteSizes.parse("4GiB")).isEqualTo(4L << 30);
        assertThat(ByteSizes.parse("64mb")).isEqualTo(64L << 20);
        assertThat(ByteSizes.parse("1.5k")).isEqualTo(1536);
    }

    @Test
    void rejectsWhatIsNotASize() {
        assertThatThrownBy(() -> ByteSizes.parse("-1G")).hasMessageContaining("size '-1G'");
        assertThatThrownBy(() -> ByteSizes.parse("4X")).hasMessageContaining("size '4X'");
        assertThatThrownBy(() -> ByteSizes.parse("99999999P")).hasMessageContaining("too large");
    }

    @Test
    void formatsWithOneDecimal() {
        assertThat(ByteSizes.format(512)).isEqualTo("512 B");
        assertThat(ByteSizes.format(1536)).isEqualTo("1.5 KiB");
        assertThat(ByteSizes.format(4L << 30)).isEqualTo("4.0 GiB");
    }
}

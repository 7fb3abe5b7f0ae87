package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationConverterTest {
    @Test
    void aDurationIsShownInTheFormTheFlagTakesAndReadsBackTheSame() {
        DurationConverter converter = new DurationConverter();
        for (String typed : new String[] {"10s", "2h", "90m", "1500ms", "0s"}) {
            assertThat(DurationConverter.shown(converter.convert(typed))).as(typed).isEqualTo(typed);
        }
        assertThat(DurationConverter.shown(Duration.ofSeconds(120))).isEqualTo("2m");
        assertThat(DurationConverter.shown(converter.convert("PT1M"))).isEqualTo("1m");
    }
}

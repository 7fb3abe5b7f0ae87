package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StopSequencesTest {
    private final List<String> passedOn = new ArrayList<>();

    private boolean feed(StopSequences stops, String... pieces) {
        for (String piece : pieces) {
            if (stops.append(piece)) {
                return true;
            }
        }
        stops.finish();
        return false;
    }

    @Test
    void textIsCutBeforeAStopSequenceThatSpansPieces() {
        StopSequences stops = new StopSequences(List.of("END"), passedOn::add);
        assertThat(feed(stops, "hello E", "N", "D and more")).isTrue();
        assertThat(stops.text()).isEqualTo("hello ");
        assertThat(String.join("", passedOn)).isEqualTo("hello ");
    }

    @Test
    void aPossibleStartIsHeldBackAndPassedOnWhenItTurnsOutNotToBeOne() {
        StopSequences stops = new StopSequences(List.of("END"), passedOn::add);
        stops.append("abc E");
        assertThat(passedOn).containsExactly("abc ");
        stops.append("N");
        assertThat(passedOn).containsExactly("abc ");
        stops.append("x");
        assertThat(passedOn).containsExactly("abc ", "ENx");
        stops.append("E");
        stops.finish();
        assertThat(passedOn).containsExactly("abc ", "ENx", "E");
        assertThat(stops.text()).isEqualTo("abc ENxE");
    }

    @Test
    void theEarliestOfSeveralStopSequencesWins() {
        StopSequences stops = new StopSequences(List.of("zz", "b"), passedOn::add);
        assertThat(feed(stops, "a", "bzz")).isTrue();
        assertThat(stops.text()).isEqualTo("a");
        assertThat(String.join("", passedOn)).isEqualTo("a");
    }

    @Test
    void withoutStopSequencesEveryPieceIsPassedOnAsItComes() {
        StopSequences stops = new StopSequences(List.of(), passedOn::add);
        assertThat(feed(stops, "a", "b")).isFalse();
        assertThat(passedOn).containsExactly("a", "b");
    }

    @Test
    void aStopSequenceAtTheVeryStartLeavesNoText() {
        StopSequences stops = new StopSequences(List.of("\n"), passedOn::add);
        assertThat(feed(stops, "\nabc")).isTrue();
        assertThat(stops.text()).isEmpty();
        assertThat(passedOn).isEmpty();
    }

    @Test
    void anEmptyStopSequenceIsRefused() {
        assertThatThrownBy(() -> new StopSequences(List.of(""), passedOn::add)).hasMessageContaining("must not be empty");
    }
}

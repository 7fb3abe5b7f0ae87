package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class BufferLenderTest {
    private final CheckpointSource.BufferLender lender = new CheckpointSource.BufferLender();

    @Test
    void givenBackBuffersServeTheNextBorrowThatFits() {
        StreamBuffers first = lender.borrow(4096);
        lender.giveBack(first);
        assertThat(lender.borrow(1024)).isSameAs(first);
    }

    @Test
    void concurrentStreamsGetTheirOwnBuffers() {
        StreamBuffers first = lender.borrow(4096);
        assertThat(lender.borrow(4096)).isNotSameAs(first);
    }

    @Test
    void tooSmallKeptBuffersAreFreedAndReplaced() {
        StreamBuffers small = lender.borrow(1024);
        lender.giveBack(small);
        StreamBuffers large = lender.borrow(8192);
        assertThat(large).isNotSameAs(small);
        assertThat(large.halfBytes()).isEqualTo(8192);
        assertThatThrownBy(() -> small.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheLenderFreesWhatItKeepsAndWhatComesBackLater() {
        StreamBuffers kept = lender.borrow(1024);
        StreamBuffers inUse = lender.borrow(1024);
        lender.giveBack(kept);
        lender.close();
        assertThatThrownBy(() -> kept.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        lender.giveBack(inUse);
        assertThatThrownBy(() -> inUse.half(1).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }
}

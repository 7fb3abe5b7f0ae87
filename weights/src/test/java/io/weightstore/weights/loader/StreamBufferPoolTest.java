package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class StreamBufferPoolTest {
    private final StreamBufferPool pool = new StreamBufferPool();

    @Test
    void givenBackBuffersServeTheNextBorrowThatFits() {
        StreamBuffers first = pool.borrow(4096);
        pool.giveBack(first);
        assertThat(pool.borrow(1024)).isSameAs(first);
    }

    @Test
    void concurrentStreamsGetTheirOwnBuffers() {
        StreamBuffers first = pool.borrow(4096);
        assertThat(pool.borrow(4096)).isNotSameAs(first);
    }

    @Test
    void tooSmallKeptBuffersAreFreedAndReplaced() {
        StreamBuffers small = pool.borrow(1024);
        pool.giveBack(small);
        StreamBuffers large = pool.borrow(8192);
        assertThat(large).isNotSameAs(small);
        assertThat(large.halfBytes()).isEqualTo(8192);
        assertThatThrownBy(() -> small.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingThePoolFreesWhatItKeepsAndWhatComesBackLater() {
        StreamBuffers kept = pool.borrow(1024);
        StreamBuffers inUse = pool.borrow(1024);
        pool.giveBack(kept);
        pool.close();
        assertThatThrownBy(() -> kept.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        pool.giveBack(inUse);
        assertThatThrownBy(() -> inUse.half(1).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aClosedPoolLendsNothing() {
        pool.close();
        assertThatThrownBy(() -> pool.borrow(1024)).isInstanceOf(IllegalStateException.class)
                .hasMessage("stream buffer pool is closed");
    }
}

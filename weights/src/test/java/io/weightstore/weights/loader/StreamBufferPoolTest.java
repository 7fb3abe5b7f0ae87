package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.Smaps;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.StitchedMapping;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StreamBufferPoolTest {
    private final StreamBufferPool pool = new StreamBufferPool();

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aBorrowTakesTheSmallestKeptSetThatFits() throws StoreException {
        StreamBuffers large = pool.borrow(8192);
        StreamBuffers small = pool.borrow(2048);
        pool.giveBack(large);
        pool.giveBack(small);

        assertThat(pool.borrow(1024)).isSameAs(small);
        assertThat(pool.borrow(4096)).isSameAs(large);
    }

    @Test
    void setsKeptBeyondTheFirstAreTheKernelsToTakeBackUntilBorrowedAgain() throws Exception {
        assumeTrue(StitchedMapping.supported(), "buffers are mapped anonymous on Linux only");
        StreamBuffers first = pool.borrow(4 << 20);
        StreamBuffers second = pool.borrow(4 << 20);
        first.half(0).fill((byte) 1);
        second.half(0).fill((byte) 1);

        pool.giveBack(first);
        pool.giveBack(second);

        assertThat(Smaps.kib(first.half(0), "LazyFree")).as("kB of the first kept set lazily freed").isZero();
        // At least most of it: the kernel moves small pages to its lazily freed list in batches.
        assertThat(Smaps.kib(second.half(0), "LazyFree")).as("kB of the second lazily freed").isGreaterThanOrEqualTo(3 * 1024);
        assertThat(pool.borrow(4 << 20)).isSameAs(first);
        StreamBuffers again = pool.borrow(4 << 20);
        again.half(0).set(ValueLayout.JAVA_BYTE, 5, (byte) 9);
        assertThat(again.half(0).get(ValueLayout.JAVA_BYTE, 5)).isEqualTo((byte) 9);
    }

    @Test
    void aSetComingBackWhenOnlyReclaimableOnesAreKeptIsKeptAsItIs() throws Exception {
        assumeTrue(StitchedMapping.supported(), "buffers are mapped anonymous on Linux only");
        StreamBuffers first = pool.borrow(4 << 20);
        StreamBuffers second = pool.borrow(4 << 20);
        pool.giveBack(first);
        pool.giveBack(second);

        StreamBuffers lent = pool.borrow(4 << 20);
        lent.half(0).fill((byte) 1);
        pool.giveBack(lent);

        assertThat(lent).isSameAs(first);
        assertThat(Smaps.kib(lent.half(0), "LazyFree")).as("kB of the one set kept as it is lazily freed").isZero();
    }

    @Test
    void givenBackBuffersServeTheNextBorrowThatFits() throws StoreException {
        StreamBuffers first = pool.borrow(4096);
        pool.giveBack(first);
        assertThat(pool.borrow(1024)).isSameAs(first);
    }

    @Test
    void concurrentStreamsGetTheirOwnBuffers() throws StoreException {
        StreamBuffers first = pool.borrow(4096);
        assertThat(pool.borrow(4096)).isNotSameAs(first);
    }

    @Test
    void buffersOfStreamsOpenAtOnceAllComeBackForTheNextRound() throws StoreException {
        List<StreamBuffers> round = List.of(pool.borrow(4096), pool.borrow(4096), pool.borrow(4096));
        round.forEach(pool::giveBack);

        List<StreamBuffers> next = List.of(pool.borrow(4096), pool.borrow(4096), pool.borrow(4096));

        assertThat(next).containsExactlyInAnyOrderElementsOf(round);
    }

    @Test
    void aBorrowFindingOnlyTooSmallSetsFreesOneSoThePoolHoldsNoMoreSetsThanWereLentAtOnce() throws StoreException {
        StreamBuffers small = pool.borrow(1024);
        StreamBuffers alsoSmall = pool.borrow(1024);
        pool.giveBack(small);
        pool.giveBack(alsoSmall);

        StreamBuffers large = pool.borrow(8192);

        assertThatThrownBy(() -> alsoSmall.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(pool.borrow(1024)).isSameAs(small);
        pool.giveBack(large);
    }

    @Test
    void halvesAreAlignedForTheStreamAndWritable() throws StoreException {
        StreamBuffers buffers = pool.borrow(3 << 20);
        for (int i = 0; i < 2; i++) {
            assertThat(buffers.half(i).address() % TensorStream.ALIGNMENT).isZero();
            assertThat(buffers.half(i).byteSize()).isEqualTo(3 << 20);
            buffers.half(i).set(ValueLayout.JAVA_BYTE, (3 << 20) - 1, (byte) 7);
        }
    }

    @Test
    void tooSmallKeptBuffersAreFreedAndReplaced() throws StoreException {
        StreamBuffers small = pool.borrow(1024);
        pool.giveBack(small);
        StreamBuffers large = pool.borrow(8192);
        assertThat(large).isNotSameAs(small);
        assertThat(large.halfBytes()).isEqualTo(8192);
        assertThatThrownBy(() -> small.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingThePoolFreesWhatItKeepsAndWhatComesBackLater() throws StoreException {
        StreamBuffers kept = pool.borrow(1024);
        StreamBuffers inUse = pool.borrow(1024);
        pool.giveBack(kept);
        pool.close();
        assertThatThrownBy(() -> kept.half(0).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        pool.giveBack(inUse);
        assertThatThrownBy(() -> inUse.half(1).get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aClosedPoolLendsNothing() throws StoreException {
        pool.close();
        assertThatThrownBy(() -> pool.borrow(1024)).isInstanceOf(IllegalStateException.class)
                .hasMessage("stream buffer pool is closed");
    }
}

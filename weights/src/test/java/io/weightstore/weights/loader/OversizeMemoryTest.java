package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import org.junit.jupiter.api.Test;

class OversizeMemoryTest {
    private final OversizeMemory memory = new OversizeMemory();

    @Test
    void blockGivenBackServesTheNextBatchThatFits() throws StoreException {
        OversizeMemory.Block block = memory.take(4096);
        memory.giveBack(block);
        assertThat(memory.take(1000)).isSameAs(block);
    }

    @Test
    void ofTwoBlocksGivenBackTheLargerIsKeptAndTheOtherFreed() throws StoreException {
        OversizeMemory.Block small = memory.take(1024);
        OversizeMemory.Block large = memory.take(8192);
        memory.giveBack(small);
        memory.giveBack(large);
        assertThat(small.arena().scope().isAlive()).isFalse();
        assertThat(memory.take(8192)).isSameAs(large);
    }

    @Test
    void keptBlockTooSmallIsFreedBeforeALargerIsAllocated() throws StoreException {
        OversizeMemory.Block small = memory.take(1024);
        memory.giveBack(small);
        OversizeMemory.Block large = memory.take(8192);
        assertThat(small.arena().scope().isAlive()).isFalse();
        assertThat(large.memory().byteSize()).isEqualTo(8192);
    }

    @Test
    void closingFreesTheKeptBlockAndBlocksGivenBackLater() throws StoreException {
        OversizeMemory.Block kept = memory.take(1024);
        OversizeMemory.Block inFlight = memory.take(1024);
        memory.giveBack(kept);
        memory.close();
        assertThat(kept.arena().scope().isAlive()).isFalse();
        memory.giveBack(inFlight);
        assertThat(inFlight.arena().scope().isAlive()).isFalse();
        assertThatThrownBy(() -> memory.take(1)).isInstanceOf(IllegalStateException.class);
    }
}

package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.wire.BlockCheck;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The node's memory of checksum blocks found intact, on a clock the test moves. */
class VerifiedBlocksTest {
    private static final long POOL = 64L << 20;
    private static final Duration TRUST = Duration.ofSeconds(10);

    private final AtomicLong now = new AtomicLong(1_000);
    private final VerifiedBlocks verified = new VerifiedBlocks(POOL, TRUST, now::get);

    private void check(BlockCheck block) {
        verified.remember(block, verified.writesStarted());
    }

    @Test
    void aBlockFoundIntactIsTrustedForItsOwnOffsetLengthAndCrcOnly() {
        BlockCheck block = new BlockCheck(4096 + (1 << 20), 1 << 20, 0x1234_5678);
        assertThat(verified.trusts(block)).as("before any check").isFalse();
        check(block);
        assertThat(verified.trusts(block)).isTrue();
        assertThat(verified.trusts(new BlockCheck(block.offset(), block.length(), 0x1234_5679))).as("another CRC").isFalse();
        assertThat(verified.trusts(new BlockCheck(block.offset(), 4096, block.crc32c()))).as("a shorter block").isFalse();
        assertThat(verified.trusts(new BlockCheck(block.offset() + 4096, block.length(), block.crc32c()))).as("elsewhere").isFalse();
    }

    @Test
    void aBlockIsTrustedNoLongerThanTheTrustTime() {
        BlockCheck block = new BlockCheck(0, 65_536, 7);
        check(block);
        now.addAndGet(TRUST.toNanos() - 1);
        assertThat(verified.trusts(block)).isTrue();
        now.incrementAndGet();
        assertThat(verified.trusts(block)).isFalse();
    }

    @Test
    void aWriteForgetsEveryBlockItTouchesAndNoOther() {
        BlockCheck before = new BlockCheck(0, 1 << 20, 1);
        BlockCheck touched = new BlockCheck(1 << 20, 1 << 20, 2);
        BlockCheck after = new BlockCheck(2 << 20, 1 << 20, 3);
        check(before);
        check(touched);
        check(after);
        // One byte at the end of the middle block: a block that starts slots before the write still overlaps it.
        verified.forget((2 << 20) - 1, 1);
        assertThat(verified.trusts(before)).isTrue();
        assertThat(verified.trusts(touched)).isFalse();
        assertThat(verified.trusts(after)).isTrue();
    }

    @Test
    void aCheckThatAWriteStartedDuringIsNotRemembered() {
        BlockCheck block = new BlockCheck(8192, 65_536, 9);
        long writesBefore = verified.writesStarted();
        verified.forget(POOL - 4096, 4096); // anywhere in the pool: the memo does not know which bytes the hash had read
        verified.remember(block, writesBefore);
        assertThat(verified.trusts(block)).isFalse();
        check(block);
        assertThat(verified.trusts(block)).isTrue();
    }

    @Test
    void aCheckMadeWhileAWriteLandsIsNotRememberedThoughTheWriteStartedBeforeIt() {
        BlockCheck block = new BlockCheck(1 << 20, 1 << 20, 4);
        try (VerifiedBlocks.Writing writing = verified.writing(0, 4 << 20)) {
            // The check hashes the block before the write's bytes reach it, so it still matches the reader's CRC.
            check(block);
            // Here the write's bytes land on the block: a reader holding the old CRC must have them hashed.
            assertThat(verified.trusts(block)).isFalse();
        }
        assertThat(verified.trusts(block)).isFalse();
        check(block);
        assertThat(verified.trusts(block)).as("a check after the write").isTrue();
    }

    @Test
    void aWriteElsewhereInThePoolLeavesAChecksMemoryAlone() {
        BlockCheck block = new BlockCheck(8 << 20, 1 << 20, 5);
        try (VerifiedBlocks.Writing writing = verified.writing(0, 4 << 20)) {
            check(block);
            assertThat(verified.trusts(block)).isTrue();
        }
        assertThat(verified.trusts(block)).isTrue();
    }

    @Test
    void aZeroTrustRemembersNothing() {
        VerifiedBlocks never = new VerifiedBlocks(POOL, Duration.ZERO, now::get);
        BlockCheck block = new BlockCheck(0, 4096, 5);
        never.remember(block, never.writesStarted());
        assertThat(never.trusts(block)).isFalse();
    }

    @Test
    void blocksStartingInOneSlotPushEachOtherOutRatherThanGrowTheMemory() {
        BlockCheck first = new BlockCheck(0, 4096, 1);
        BlockCheck second = new BlockCheck(4096, 4096, 2);
        check(first);
        check(second);
        assertThat(verified.trusts(first)).isFalse();
        assertThat(verified.trusts(second)).isTrue();
    }

    @Test
    void aBlockAtTheVeryEndOfThePoolIsNeverTrusted() {
        BlockCheck empty = new BlockCheck(POOL, 0, 0);
        check(empty);
        assertThat(verified.trusts(empty)).isFalse();
    }

    @Test
    void aNegativeTrustOrCapacityIsRefusedNamingIt() {
        assertThatThrownBy(() -> new VerifiedBlocks(POOL, Duration.ofSeconds(-1), now::get)).hasMessageContaining("trust=PT-1S");
        assertThatThrownBy(() -> new VerifiedBlocks(-1, TRUST, now::get)).hasMessageContaining("capacity=-1");
    }
}

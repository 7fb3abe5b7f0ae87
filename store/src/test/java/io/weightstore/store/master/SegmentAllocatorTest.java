package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.pool.PoolFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SegmentAllocatorTest {
    private static final long A = SegmentAllocator.ALIGNMENT;
    private static final long HUGE = PoolFile.HUGE_PAGE;

    @Test
    void allocatesAlignedRangesFirstFitUntilFull() {
        SegmentAllocator allocator = new SegmentAllocator(10 * A + 5);
        assertThat(allocator.capacity()).isEqualTo(10 * A);
        assertThat(allocator.allocate(1).getAsLong()).isZero();
        assertThat(allocator.allocate(A + 1).getAsLong()).isEqualTo(A);
        assertThat(allocator.used()).isEqualTo(3 * A);
        assertThat(allocator.allocate(8 * A)).isEmpty();
        assertThat(allocator.allocate(7 * A).getAsLong()).isEqualTo(3 * A);
        assertThat(allocator.free()).isZero();
    }

    @Test
    void releasedNeighboursMergeIntoOneRange() {
        SegmentAllocator allocator = new SegmentAllocator(4 * A);
        long a = allocator.allocate(A).getAsLong();
        long b = allocator.allocate(A).getAsLong();
        long c = allocator.allocate(A).getAsLong();
        allocator.release(a, A);
        allocator.release(c, A);
        assertThat(allocator.allocate(3 * A)).as("fragmented").isEmpty();
        allocator.release(b, A);
        assertThat(allocator.allocate(4 * A).getAsLong()).isZero();
    }

    @Test
    void reserveRebuildsStateAndRefusesTakenRanges() {
        SegmentAllocator allocator = new SegmentAllocator(8 * A);
        allocator.reserve(2 * A, A);
        allocator.reserve(5 * A, 2 * A);
        assertThat(allocator.used()).isEqualTo(3 * A);
        assertThatThrownBy(() -> allocator.reserve(2 * A, A)).hasMessageContaining("not free");
        assertThat(allocator.allocate(2 * A).getAsLong()).isZero();
        assertThat(allocator.allocate(2 * A).getAsLong()).isEqualTo(3 * A);
    }

    @Test
    void randomAllocateReleaseNeverOverlapsAndReturnsAllSpace() {
        SegmentAllocator allocator = new SegmentAllocator(1024 * A);
        Random random = new Random(1);
        List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            if (!live.isEmpty() && random.nextBoolean()) {
                long[] range = live.remove(random.nextInt(live.size()));
                allocator.release(range[0], range[1]);
            } else {
                long length = 1 + random.nextInt((int) (8 * A));
                allocator.allocate(length).ifPresent(offset -> live.add(new long[] {offset, length}));
            }
            for (long[] x : live) {
                for (long[] y : live) {
                    if (x != y) {
                        assertThat(x[0] + SegmentAllocator.aligned(x[1]) <= y[0] || y[0] + SegmentAllocator.aligned(y[1]) <= x[0])
                                .as("ranges overlap").isTrue();
                    }
                }
            }
        }
        live.forEach(range -> allocator.release(range[0], range[1]));
        assertThat(allocator.used()).isZero();
        assertThat(allocator.allocate(1024 * A)).isPresent();
    }

    @Test
    void rangesOfAHugePageOrMoreStartWhereThePoolFilesHugePagesStart() {
        SegmentAllocator allocator = new SegmentAllocator(64 << 20);
        assertThat(allocator.allocate(1).getAsLong()).isZero();
        long slice = allocator.allocate(4 << 20).getAsLong();
        assertThat((PoolFile.DATA_START + slice) % HUGE).as("file offset of data offset %d", slice).isZero();
        assertThat(slice).as("the first such place").isEqualTo(HUGE - PoolFile.DATA_START);
        assertThat(allocator.allocate(A).getAsLong()).as("small ranges fill the gap before it").isEqualTo(A);
        long odd = allocator.allocate(HUGE + 1).getAsLong();
        assertThat((PoolFile.DATA_START + odd) % HUGE).isZero();
        assertThat(allocator.used()).isEqualTo(A + (4 << 20) + A + HUGE + A);
    }

    @Test
    void aRangeWithNoRoomOnTheHugePagesStillGetsTheRoomThereIs() {
        SegmentAllocator allocator = new SegmentAllocator(4 << 20);
        assertThat(allocator.allocate(4 << 20).getAsLong()).isZero();
        assertThat(allocator.free()).isZero();
    }

    @Test
    void randomLargeAndSmallRangesNeverOverlapAndReturnAllSpace() {
        long capacity = 64 * HUGE;
        SegmentAllocator allocator = new SegmentAllocator(capacity);
        Random random = new Random(2);
        List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                long[] range = live.remove(random.nextInt(live.size()));
                allocator.release(range[0], range[1]);
            } else {
                long length = random.nextBoolean() ? 1 + random.nextInt((int) (4 * A)) : HUGE + random.nextInt((int) (3 * HUGE));
                allocator.allocate(length).ifPresent(offset -> live.add(new long[] {offset, length}));
            }
            List<long[]> sorted = live.stream().sorted((x, y) -> Long.compare(x[0], y[0])).toList();
            for (int r = 1; r < sorted.size(); r++) {
                assertThat(sorted.get(r - 1)[0] + SegmentAllocator.aligned(sorted.get(r - 1)[1])).as("ranges overlap")
                        .isLessThanOrEqualTo(sorted.get(r)[0]);
            }
            assertThat(live.stream().mapToLong(range -> SegmentAllocator.aligned(range[1])).sum()).isEqualTo(allocator.used());
        }
        live.forEach(range -> allocator.release(range[0], range[1]));
        assertThat(allocator.used()).isZero();
        assertThat(allocator.allocate(capacity).getAsLong()).isZero();
    }
}

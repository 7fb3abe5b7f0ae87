package io.weightstore.gateway.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.gateway.s3.ErrorCode;
import io.weightstore.gateway.s3.S3Error;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TransferSlotsTest {
    @Test
    void boundsTransfersLetsSomeWaitAndTurnsAwayTheRest() throws Exception {
        TransferSlots slots = new TransferSlots(1, 1, 64 << 10, Duration.ofMinutes(1));
        TransferSlots.Slot first = slots.acquire();
        MemorySegment buffer = first.buffer(0);
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch served = new CountDownLatch(1);
        Thread second = Thread.ofVirtual().start(() -> {
            waiting.countDown();
            try (TransferSlots.Slot slot = slots.acquire()) {
                // The buffers go from one transfer to the next rather than being allocated again.
                assertThat(slot.buffer(0)).isSameAs(buffer);
                served.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiting.await();
        while (second.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(5);
        }
        assertThatThrownBy(slots::acquire).isInstanceOfSatisfying(S3Error.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SLOW_DOWN));
        first.close();
        first.close();
        assertThat(served.await(10, TimeUnit.SECONDS)).isTrue();
        second.join();
        try (TransferSlots.Slot again = slots.acquire()) {
            assertThat(again.chunkBytes()).isEqualTo(64 << 10);
        }
        slots.close();
    }

    @Test
    void aTransferWaitsForASlotNoLongerThanItsBoundThenIsToldToSlowDown() throws Exception {
        TransferSlots slots = new TransferSlots(1, 4, 64 << 10, Duration.ofMillis(200));
        try (TransferSlots.Slot held = slots.acquire()) {
            long started = System.nanoTime();
            assertThatThrownBy(slots::acquire).isInstanceOfSatisfying(S3Error.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.SLOW_DOWN));
            assertThat(System.nanoTime() - started).as("it waited its bound first").isGreaterThanOrEqualTo(200_000_000L);
            assertThat(slots.waiting()).isZero();
            assertThat(slots.running()).isEqualTo(1);
        }
        assertThat(slots.running()).isZero();
        slots.close();
    }

    @Test
    void buffersAreOffHeapPageAlignedAndFreedWithTheSlots() throws Exception {
        TransferSlots slots = new TransferSlots(2, 0, 64 << 10, Duration.ofMinutes(1));
        MemorySegment buffer;
        try (TransferSlots.Slot slot = slots.acquire()) {
            buffer = slot.buffer(1);
            assertThat(buffer.isNative()).isTrue();
            assertThat(buffer.address() % 4096).isZero();
            assertThat(buffer.byteSize()).isEqualTo(64 << 10);
        }
        slots.close();
        assertThatThrownBy(() -> buffer.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }
}

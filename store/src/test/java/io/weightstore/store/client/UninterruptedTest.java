package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A master call from a thread being interrupted goes out; one bounded by runWithin holds that thread no longer than its bound. */
class UninterruptedTest {
    @AfterEach
    void clearTheFlag() {
        Thread.interrupted();
    }

    @Test
    @Timeout(30)
    void anInterruptedCallerWaitsNoLongerThanTheBoundAndTheCallGoesOn() throws Exception {
        CountDownLatch released = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        Thread.currentThread().interrupt();

        // A master that does not answer holds the call for far longer than the caller waits.
        Uninterrupted.runWithin(Duration.ofMillis(50), () -> {
            try {
                assertThat(released.await(60, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            finished.countDown();
        });

        assertThat(Thread.interrupted()).as("the caller's interrupt, kept").isTrue();
        assertThat(finished.getCount()).as("the call, still under way").isEqualTo(1);
        released.countDown();
        assertThat(finished.await(30, TimeUnit.SECONDS)).as("the call, gone on without its caller").isTrue();
    }

    @Test
    void anInterruptedCallerGetsTheCallsFailureWithinTheBound() {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> Uninterrupted.runWithin(Duration.ofSeconds(30), () -> {
            throw new StoreException(StoreException.Code.NOT_FOUND, "no such lease");
        })).isInstanceOf(StoreException.class).hasMessage("no such lease");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void aCallerNotInterruptedMakesTheCallItself() throws Exception {
        Thread caller = Thread.currentThread();
        Thread[] ranOn = new Thread[1];
        Uninterrupted.runWithin(Duration.ofMillis(1), () -> ranOn[0] = Thread.currentThread());
        assertThat(ranOn[0]).isSameAs(caller);
    }
}

package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Host names looked up within a deadline, one lookup per name at a time. */
class HostLookupTest {
    @Test
    void callersOfANameWhoseLookupHangsShareOneLookupAndEachGivesUpAtItsDeadline() throws Exception {
        CountDownLatch answer = new CountDownLatch(1);
        AtomicInteger lookups = new AtomicInteger();
        HostLookup hanging = new HostLookup(host -> {
            lookups.incrementAndGet();
            try {
                answer.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return InetAddress.getLoopbackAddress();
        });
        for (int caller = 0; caller < 20; caller++) {
            assertThatThrownBy(() -> hanging.resolve("node-3.cluster.test", Duration.ofMillis(20)))
                    .isInstanceOf(SocketTimeoutException.class).hasMessageContaining("node-3.cluster.test");
        }
        assertThat(lookups).as("one thread held by the resolver, not one per caller").hasValue(1);

        answer.countDown();
        assertThat(hanging.resolve("node-3.cluster.test", Duration.ofSeconds(30))).isEqualTo(InetAddress.getLoopbackAddress());
    }

    @Test
    void aNameThatDoesNotResolveIsAskedAgainByTheNextCaller() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        HostLookup unknown = new HostLookup(host -> {
            lookups.incrementAndGet();
            throw new UnknownHostException(host);
        });
        // Many callers one after another: a lookup that ends before its caller waits must not stay behind for the next.
        for (int caller = 0; caller < 100; caller++) {
            assertThatThrownBy(() -> unknown.resolve("gone.cluster.test", Duration.ofSeconds(30))).isInstanceOf(UnknownHostException.class);
        }
        assertThat(lookups).hasValue(100);
    }

    @Test
    void literalAddressesAreNotLookedUp() throws Exception {
        HostLookup refusing = new HostLookup(host -> {
            throw new AssertionError("looked up " + host);
        });
        assertThat(refusing.resolve("10.1.2.3", Duration.ofMillis(1)).getHostAddress()).isEqualTo("10.1.2.3");
        assertThat(refusing.resolve("::1", Duration.ofMillis(1)).isLoopbackAddress()).isTrue();
    }
}

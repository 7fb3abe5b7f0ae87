package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A call that cannot be repeated (a put's start) waits for a busy leader's answer longer than a try lasts: cut off at the
 * try's deadline, it could only fail with its outcome unknown, while the leader went on to carry it out.
 */
class FailoverUnsafeDeadlineTest {
    private static final Duration TRY = Duration.ofSeconds(1);
    private static final Duration ANSWERED_AFTER = Duration.ofMillis(1_500);

    @Test
    void aPutStartAnsweredAfterATrysDeadlineGetsTheLeadersAnswer() throws Exception {
        MasterApi busy = (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("putStart")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Thread.sleep(ANSWERED_AFTER);
                    throw new StoreException(StoreException.Code.NO_SPACE, "no room for " + args[0] + ", answered after its writes queued");
                });
        MasterEndpoint leader = MasterEndpoint.start(busy, "127.0.0.1", 0, MasterSecurity.insecure());
        // A second master that is gone: the first is the group's leader.
        List<MasterAddress> group = List.of(MasterAddress.parse("127.0.0.1:" + leader.port()), MasterAddress.parse("127.0.0.1:1"));
        try (FailoverMasterApi master = FailoverMasterApi.connect(group, Authentication.insecure(), Optional.empty(), TRY,
                Duration.ofSeconds(10), Duration.ofSeconds(20))) {
            assertThatThrownBy(() -> master.putStart("k", 1, PutOptions.defaults())).isInstanceOfSatisfying(StoreException.class,
                    e -> {
                        assertThat(e.code()).isEqualTo(StoreException.Code.NO_SPACE);
                        assertThat(e.getMessage()).contains("answered after its writes queued");
                    });
        } finally {
            leader.close();
        }
    }
}

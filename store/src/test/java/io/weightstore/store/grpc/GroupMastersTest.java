package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.StoreException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GroupMastersTest {
    private static final MasterMember LEADER = new MasterMember("127.0.0.1:7000", MasterMember.State.LEADER, null);

    @Test
    void mastersTheLeaderDoesNotListAreAskedAtOnceAndShownInTheOrderGiven() throws Exception {
        // Each answer waits until every unlisted master was asked: asked one after another, each call would time out instead.
        CountDownLatch allAsked = new CountDownLatch(2);
        GroupMasters.Connections connections = address -> master(() -> {
            allAsked.countDown();
            if (!allAsked.await(10, TimeUnit.SECONDS)) {
                throw new StoreException(StoreException.Code.UNAVAILABLE, "master unavailable at " + address + ": deadline exceeded");
            }
        });

        List<MasterMember> members = GroupMasters.of(List.of(LEADER), List.of(MasterAddress.parse("127.0.0.1:7000"),
                MasterAddress.parse("127.0.0.1:7001"), MasterAddress.parse("127.0.0.1:7002")), connections);

        assertThat(members).extracting(MasterMember::address).containsExactly("127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002");
        assertThat(members).extracting(MasterMember::state).containsExactly(MasterMember.State.LEADER, MasterMember.State.UNLISTED,
                MasterMember.State.UNLISTED);
    }

    @Test
    void anUnlistedMasterNoCallReachesIsUnreachableWithWhy() throws Exception {
        GroupMasters.Connections connections = address -> master(() -> {
            throw new StoreException(StoreException.Code.UNAVAILABLE, "master unavailable at " + address + ": connection refused");
        });

        List<MasterMember> members = GroupMasters.of(List.of(LEADER), List.of(MasterAddress.parse("127.0.0.1:7001")), connections);

        assertThat(members.getLast().state()).isEqualTo(MasterMember.State.UNREACHABLE);
        assertThat(members.getLast().error()).contains("127.0.0.1:7001", "connection refused");
    }

    @FunctionalInterface
    private interface StatusCall {
        void run() throws Exception;
    }

    /** A master whose status call runs {@code status}; nothing else of it is asked. */
    private static MasterApi master(StatusCall status) {
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("status")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    status.run();
                    return null;
                });
    }
}

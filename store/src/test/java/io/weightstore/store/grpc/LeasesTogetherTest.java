package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases of several objects taken, renewed and ended in one call over gRPC, from a master that knows
 * the calls and, one object at a time, from one of a release before them (a front end that answers
 * them UNIMPLEMENTED and passes every other call to a real master), all or nothing either way.
 */
class LeasesTogetherTest {
    private static final Set<String> NEW_CALLS = Set.of("LocateAll", "RenewLeases", "ReleaseLeases");

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient store;
    private GrpcMasterApi behindFront;
    private MasterEndpoint olderRelease;
    private final AtomicInteger refused = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp, 1);
        store = cluster.client();
        for (String key : List.of("ckpt/a", "ckpt/b", "ckpt/c")) {
            store.put(key, new byte[] {1, 2, 3}, PutOptions.defaults());
        }
        behindFront = GrpcMasterApi.connect(cluster.masterAddress(), Authentication.insecure());
        ServerInterceptor withoutNewCalls = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                if (NEW_CALLS.contains(call.getMethodDescriptor().getBareMethodName())) {
                    refused.incrementAndGet();
                    call.close(Status.UNIMPLEMENTED.withDescription("Method not found"), new Metadata());
                    return new ServerCall.Listener<>() {};
                }
                return next.startCall(call, headers);
            }
        };
        olderRelease = MasterEndpoint.start(behindFront, "127.0.0.1", 0, MasterSecurity.insecure(), List.of(withoutNewCalls),
                new MasterMetrics());
    }

    @AfterEach
    void stop() throws Exception {
        olderRelease.close();
        behindFront.close();
        cluster.close();
    }

    private GrpcMasterApi master() throws StoreException {
        return GrpcMasterApi.connect(cluster.masterAddress(), Authentication.insecure());
    }

    private GrpcMasterApi olderMaster() throws StoreException {
        return GrpcMasterApi.connect("127.0.0.1:" + olderRelease.port(), Authentication.insecure());
    }

    @Test
    void aMasterThatKnowsTheCallsLeasesAndReleasesTogether() throws Exception {
        try (GrpcMasterApi master = master()) {
            leasesHoldUntilReleasedTogether(master);
        }
        assertThat(refused).hasValue(0);
    }

    @Test
    void aMasterOfAnEarlierReleaseLeasesAndReleasesOneObjectAtATime() throws Exception {
        try (GrpcMasterApi master = olderMaster()) {
            leasesHoldUntilReleasedTogether(master);
        }
        assertThat(refused).as("each call was tried first").hasValue(3);
    }

    @Test
    void aKeyWithNoObjectLeavesNoLeaseEitherWay() throws Exception {
        try (GrpcMasterApi master = master(); GrpcMasterApi older = olderMaster()) {
            for (GrpcMasterApi api : List.of(master, older)) {
                assertThatThrownBy(() -> api.locateAll(List.of("ckpt/a", "ckpt/b", "ckpt/missing"), Duration.ZERO))
                        .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.NOT_FOUND))
                        .hasMessageContaining("ckpt/missing");
            }
        }
        assertThat(refused).hasValue(1);
        store.remove("ckpt/a", false);
        store.remove("ckpt/b", false);
    }

    private void leasesHoldUntilReleasedTogether(GrpcMasterApi master) throws StoreException {
        List<Located> located = master.locateAll(List.of("ckpt/c", "ckpt/a"), Duration.ZERO);
        assertThat(located).extracting(l -> l.object().key()).containsExactly("ckpt/c", "ckpt/a");
        assertThat(located).allSatisfy(l -> assertThat(l.object().size()).isEqualTo(3));
        List<HeldLease> held = located.stream().map(l -> new HeldLease(l.object().key(), l.lease().id())).toList();
        List<HeldLease> withAnUnknownOne = new ArrayList<>(held);
        withAnUnknownOne.add(1, new HeldLease("ckpt/b", Long.MAX_VALUE));
        List<Optional<Lease>> renewed = master.renewLeases(withAnUnknownOne, Duration.ofSeconds(20));
        assertThat(renewed).hasSize(3);
        assertThat(renewed.get(0)).hasValueSatisfying(l -> assertThat(l.id()).isEqualTo(held.get(0).leaseId()));
        assertThat(renewed.get(1)).as("a lease the master never granted").isEmpty();
        assertThat(renewed.get(2)).hasValueSatisfying(l -> assertThat(l.id()).isEqualTo(held.get(1).leaseId()));
        for (String key : List.of("ckpt/c", "ckpt/a")) {
            assertThatThrownBy(() -> store.remove(key, false)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
        }
        master.releaseLeases(held);
        store.remove("ckpt/c", false);
        store.remove("ckpt/a", false);
    }
}

package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.TxnResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.master.MetadataBatch;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two masters' elections on one etcd: when the leader's lease goes, the other leads, and the old one can commit nothing. */
class FencingTest {
    private static final Duration LEASE = Duration.ofSeconds(2);

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(1);

    /** Records what an election tells its master. */
    private static final class Events implements LeaderElection.Listener {
        final BlockingQueue<Fence> elected = new LinkedBlockingQueue<>();
        final BlockingQueue<Fence> deposed = new LinkedBlockingQueue<>();

        @Override
        public void elected(Fence fence) {
            elected.add(fence);
        }

        @Override
        public void deposed(Fence fence, String why) {
            deposed.add(fence);
        }
    }

    private static ObjectMeta object(String key) {
        return new ObjectMeta(key, 0, 1 << 20, 64 << 10, List.of(), false, Instant.EPOCH, 1);
    }

    private static Fence next(BlockingQueue<Fence> events) throws InterruptedException {
        Fence fence = events.poll(10, TimeUnit.SECONDS);
        assertThat(fence).as("an election event within 10 s").isNotNull();
        return fence;
    }

    @Test
    void aLeaderWhoseLeaseIsGoneCanCommitNothingAndStepsDown() throws Exception {
        ClusterKeys keys = new ClusterKeys("fencing-" + UUID.randomUUID());
        Events a = new Events();
        Events b = new Events();
        try (LeaderElection first = LeaderElection.start(ETCD.client(), keys, "a:1", LEASE, Duration.ofSeconds(1), a)) {
            Fence fenceA = next(a.elected);
            assertThat(first.holds(fenceA)).isTrue();
            try (LeaderElection second = LeaderElection.start(ETCD.client(), keys, "b:1", LEASE, Duration.ofSeconds(1), b)) {
                EtcdMetadataStore storeA = EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fenceA, Duration.ofSeconds(1),
                        () -> first.stepDown(fenceA, "a write was refused"));
                storeA.apply(new MetadataBatch().putObject(object("before")));
                Thread.sleep(600);
                assertThat(b.elected).as("a follower does not lead while the leader's lease lives").isEmpty();
                assertThat(second.leaderAddress()).contains("a:1");

                // A partition as etcd sees it: the leader's renewals stop arriving and its lease expires.
                long leaseA = ETCD.client().getKVClient().get(keys.leader()).get().getKvs().getFirst().getLease();
                ETCD.client().getLeaseClient().revoke(leaseA).get();
                Fence fenceB = next(b.elected);
                assertThat(fenceB.revision()).isGreaterThan(fenceA.revision());

                assertThatThrownBy(() -> storeA.apply(new MetadataBatch().putObject(object("after")).deleteObject("before")))
                        .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                        .hasMessageContaining("no longer the leader").hasMessageContaining("held by b:1");
                assertThat(next(a.deposed)).isSameAs(fenceA);
                assertThat(first.holds(fenceA)).isFalse();
                assertThatThrownBy(() -> storeA.object("before")).hasMessageContaining("stepped down");

                EtcdMetadataStore storeB = EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fenceB, Duration.ofSeconds(1),
                        () -> {});
                assertThat(storeB.object("before")).isPresent();
                assertThat(storeB.object("after")).as("nothing of the deposed leader's batch committed").isEmpty();
                storeB.apply(new MetadataBatch().putObject(object("by-b")));
                assertThat(EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fenceB, Duration.ofSeconds(1), () -> {})
                        .objects("", "", 10)).extracting(ObjectMeta::key).containsExactly("before", "by-b");
            }
        }
    }

    @Test
    void aBidWhoseAnswerWasLostIsAdoptedOnTheNextRound() throws Exception {
        ClusterKeys keys = new ClusterKeys("fencing-" + UUID.randomUUID());
        Events a = new Events();
        AtomicBoolean answerLost = new AtomicBoolean();
        try (LeaderElection election = LeaderElection.start(losingFirstTxnAnswer(ETCD.client(), answerLost), keys, "a:1", LEASE,
                Duration.ofSeconds(1), a)) {
            Fence fence = next(a.elected);
            assertThat(answerLost).as("the first bid committed but its answer never came").isTrue();
            KeyValue key = ETCD.client().getKVClient().get(keys.leader()).get().getKvs().getFirst();
            assertThat(fence.revision()).isEqualTo(key.getCreateRevision());
            assertThat(election.holds(fence)).isTrue();
            assertThat(election.leaderAddress()).contains("a:1");
        }
    }

    @Test
    void aMasterWhoseRegistrationFailedIsListedOnceAnotherRoundWritesIt() throws Exception {
        ClusterKeys keys = new ClusterKeys("fencing-" + UUID.randomUUID());
        AtomicBoolean failed = new AtomicBoolean();
        KV kv = forwarding(KV.class, ETCD.client().getKVClient(),
                (method, args) -> method.getName().equals("put") && failed.compareAndSet(false, true)
                        ? CompletableFuture.failedFuture(new IllegalStateException("the registration's put was lost")) : null);
        Client failingFirstPut = forwarding(Client.class, ETCD.client(),
                (method, args) -> method.getName().equals("getKVClient") ? kv : null);
        try (LeaderElection election = LeaderElection.start(failingFirstPut, keys, "a:1", LEASE, Duration.ofSeconds(1), new Events())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (ETCD.client().getKVClient().get(keys.member("a:1")).get().getKvs().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(failed).as("the first registration failed").isTrue();
            assertThat(ETCD.client().getKVClient().get(keys.member("a:1")).get().getKvs()).as("the member key").hasSize(1);
        }
    }

    /**
     * etcd's quota check at apply time answers "database space exceeded" for a transaction it has applied: the leader's copy
     * may then be behind etcd, and a put it took for refused would have its room given to the next (two records on one range).
     */
    @Test
    void aWriteEtcdAnswersWithNoSpaceMayHaveBeenAppliedSoTheLeaderStepsDown() throws Exception {
        ClusterKeys keys = new ClusterKeys("fencing-" + UUID.randomUUID());
        Events a = new Events();
        try (LeaderElection election = LeaderElection.start(ETCD.client(), keys, "a:1", LEASE, Duration.ofSeconds(1), a)) {
            Fence fence = next(a.elected);
            KV appliedThenOutOfSpace = forwarding(KV.class, ETCD.client().getKVClient(), (method, args) -> method.getName().equals("txn")
                    ? answeringNoSpaceOnceApplied(ETCD.client().getKVClient().txn()) : null);
            AtomicBoolean steppedDown = new AtomicBoolean();
            EtcdMetadataStore store = EtcdMetadataStore.open(appliedThenOutOfSpace, keys, fence, Duration.ofSeconds(1),
                    () -> steppedDown.set(true));
            MetadataBatch batch = new MetadataBatch();
            batch.putObject(object("applied"));

            assertThatThrownBy(() -> store.apply(batch)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).as("not a batch refused whole").isNotEqualTo(StoreException.Code.INVALID_ARGUMENT));
            assertThat(steppedDown).as("a leader whose copy may be behind etcd").isTrue();
            assertThat(EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fence, Duration.ofSeconds(1), () -> {})
                    .objects("", "", 10)).extracting(ObjectMeta::key).containsExactly("applied");
        }
    }

    private static Txn answeringNoSpaceOnceApplied(Txn txn) {
        return answeringInstead(txn, () -> CompletableFuture.failedFuture(new StatusRuntimeException(Status.RESOURCE_EXHAUSTED
                .withDescription("etcdserver: mvcc: database space exceeded"))));
    }

    /** {@code etcd} as seen over a link that loses the answer to the first transaction after etcd committed it. */
    private static Client losingFirstTxnAnswer(Client etcd, AtomicBoolean lost) {
        KV kv = forwarding(KV.class, etcd.getKVClient(), (method, args) -> method.getName().equals("txn")
                ? losingAnswer(etcd.getKVClient().txn(), lost) : null);
        return forwarding(Client.class, etcd, (method, args) -> method.getName().equals("getKVClient") ? kv : null);
    }

    private static Txn losingAnswer(Txn txn, AtomicBoolean lost) {
        return answeringInstead(txn, () -> lost.compareAndSet(false, true) ? new CompletableFuture<>() : null);
    }

    /**
     * {@code txn}, whose commit, when {@code instead} gives an answer, is committed in etcd and answered with that; when it
     * gives null, committed and answered as etcd answers.
     */
    private static Txn answeringInstead(Txn txn, Supplier<CompletableFuture<TxnResponse>> instead) {
        Txn[] self = new Txn[1];
        self[0] = forwarding(Txn.class, txn, (method, args) -> switch (method.getName()) {
            case "If", "Then", "Else" -> {
                method.invoke(txn, args);
                yield self[0];
            }
            case "commit" -> {
                CompletableFuture<TxnResponse> answer = instead.get();
                if (answer != null) {
                    txn.commit().get(10, TimeUnit.SECONDS);
                }
                yield answer;
            }
            default -> null;
        });
        return self[0];
    }

    /** Answers for {@code type}'s methods: a non-null result replaces the call to the real object. */
    private interface Answer {
        Object answer(Method method, Object[] args) throws Exception;
    }

    private static <T> T forwarding(Class<T> type, T real, Answer override) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object answer = override.answer(method, args);
            if (answer != null) {
                return answer;
            }
            try {
                return method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    @Test
    void aBatchEtcdCannotTakeInOneTransactionIsRefusedWhole() throws Exception {
        ClusterKeys keys = new ClusterKeys("fencing-" + UUID.randomUUID());
        Events a = new Events();
        try (LeaderElection election = LeaderElection.start(ETCD.client(), keys, "a:1", LEASE, Duration.ofSeconds(1), a)) {
            Fence fence = next(a.elected);
            EtcdMetadataStore store = EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fence, Duration.ofSeconds(1), () -> {});
            MetadataBatch big = new MetadataBatch();
            for (int i = 0; i <= EtcdMetadataStore.MAX_BATCH; i++) {
                big.putObject(object("k" + i));
            }
            assertThatThrownBy(() -> store.apply(big)).hasMessageContaining("129 records").hasMessageContaining("128");
            assertThat(store.objects("", "", 1000)).isEmpty();
            assertThat(election.holds(fence)).isTrue();
        }
    }
}

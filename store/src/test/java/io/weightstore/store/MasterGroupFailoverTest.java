package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.security.Authentication;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group of three masters, each a JVM of its own, on a 3-member etcd, with default election
 * settings (a 2 s leader lease): the leader killed with SIGKILL during four loads, the leader frozen
 * with SIGSTOP as behind a partition, and an etcd member lost. Failover times are printed.
 */
class MasterGroupFailoverTest {
    /** The bound the tests hold a take-over to: twice the 5 s target, for a loaded 2-core machine. */
    private static final Duration TAKE_OVER_BOUND = Duration.ofSeconds(10);

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(3);

    @TempDir
    Path tmp;

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** Reads all of {@code object} slowly, a piece at a time, so the reads span a change of leader. */
    private static MemorySegment readSlowly(ObjectReader object, Arena arena, int pieces, long pauseMs) throws Exception {
        MemorySegment copy = arena.allocate(object.size());
        long piece = Math.ceilDiv(object.size(), pieces);
        for (long at = 0; at < object.size(); at += piece) {
            long length = Math.min(piece, object.size() - at);
            object.read(new Range(at, length), copy.asSlice(at, length));
            Thread.sleep(pauseMs);
        }
        return copy;
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    @Test
    void leaderKilledDuringFourLoadsIsReplacedAndTheLoadsCompleteWithTheRightBytes() throws Exception {
        try (Arena arena = Arena.ofShared();
                MasterGroupCluster group = new MasterGroupCluster(tmp, ETCD.cluster(), "kill-loads", 3, 3, true);
                ExecutorService loaders = Executors.newFixedThreadPool(4)) {
            int leader = group.awaitLeader(-1, Duration.ofSeconds(60));
            // Leases short enough that the readers renew them with the new leader, and long enough to outlast the change: a
            // lease renewed just before the kill must live through the takeover (3-3.5 s here) and the reader's next retry
            // (up to 1 s later), which a 4 s lease did not always do on a busy machine.
            StoreClient client = group.client(ClientOptions.defaults().withSameHostPath(false).withLeaseDuration(Duration.ofSeconds(8)));
            List<MemorySegment> sources = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                MemorySegment bytes = Bytes.random(arena, 6 * TestCluster.SLICE + 1234 * i, 10 + i);
                client.put("load/" + i, bytes, PutOptions.defaults().withReplicas(2));
                sources.add(bytes);
            }
            CountDownLatch opened = new CountDownLatch(4);
            List<Future<MemorySegment>> loads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String key = "load/" + i;
                loads.add(loaders.submit(() -> {
                    try (ObjectReader object = client.open(key)) {
                        opened.countDown();
                        return readSlowly(object, arena, 24, 250);
                    }
                }));
            }
            assertThat(opened.await(20, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(500);

            long killed = System.nanoTime();
            group.kill(leader);
            client.stat("load/0"); // waits for the group to answer again
            long clientSeesALeader = millisSince(killed);
            int next = group.awaitLeader(leader, TAKE_OVER_BOUND);
            long takeOver = millisSince(killed);
            System.out.printf("FAILOVER after SIGKILL during 4 loads: a client's call answered after %d ms; %s leads (status answered) "
                    + "after %d ms%n", clientSeesALeader, group.address(next), takeOver);
            assertThat(takeOver).isLessThan(TAKE_OVER_BOUND.toMillis());

            // The readers' leases live on in the new leader (recovered, then renewed): no removal under them.
            assertThatThrownBy(() -> client.remove("load/0", false)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
            for (int i = 0; i < 4; i++) {
                assertThat(Bytes.equal(loads.get(i).get(60, TimeUnit.SECONDS), sources.get(i))).as("load " + i).isTrue();
            }
            assertThat(client.list("load/")).hasSize(4);
            assertThat(Bytes.equal(Bytes.readWhole(client, "load/3", arena), sources.get(3))).isTrue();
        }
    }

    @Test
    void aFrozenLeaderIsReplacedAndWhenItThawsItStepsDownAndCommitsNothing() throws Exception {
        try (Arena arena = Arena.ofShared();
                MasterGroupCluster group = new MasterGroupCluster(tmp, ETCD.cluster(), "freeze", 3, 2, true)) {
            int old = group.awaitLeader(-1, Duration.ofSeconds(60));
            StoreClient client = group.client();
            MemorySegment bytes = Bytes.random(arena, 2 * TestCluster.SLICE, 5);
            client.put("p/before", bytes, PutOptions.defaults());

            long frozen = System.nanoTime();
            group.freeze(old);
            int next = group.awaitLeader(old, TAKE_OVER_BOUND);
            System.out.printf("FAILOVER after SIGSTOP: %s leads after %d ms%n", group.address(next), millisSince(frozen));
            client.stat("p/before"); // a call that is safe to repeat moves the client off the frozen master
            client.put("p/during", bytes, PutOptions.defaults());

            group.thaw(old);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            String refusal = "";
            while (System.nanoTime() < deadline && !refusal.contains("the leader is " + group.address(next))) {
                try (GrpcMasterApi direct = GrpcMasterApi.connect(group.address(old), Authentication.insecure(), Optional.empty(), Duration.ofSeconds(2))) {
                    direct.stat("p/before");
                    refusal = "answered";
                } catch (StoreException e) {
                    refusal = e.getMessage();
                }
                Thread.sleep(100);
            }
            Path oldLog = tmp.resolve("master-" + old + ".log");
            assertThat(refusal).as(() -> "the thawed master sends clients to the new leader; its log:\n" + readQuietly(oldLog))
                    .contains("not the leader")
                    .contains("the leader is " + group.address(next));
            for (int i = 0; i < group.masters(); i++) {
                assertThat(group.statusOf(i).isPresent()).as("master " + i + " answers as leader").isEqualTo(i == next);
            }
            assertThat(Files.readString(tmp.resolve("master-" + old + ".log"))).contains("stops leading");
            client.put("p/after", bytes, PutOptions.defaults());
            assertThat(client.list("p/")).hasSize(3);
            assertThat(Bytes.equal(Bytes.readWhole(client, "p/during", arena), bytes)).isTrue();
        }
    }

    @Test
    void losingOneEtcdMemberLeavesTheGroupServingOnTwoOfThree() throws Exception {
        try (Arena arena = Arena.ofShared();
                EtcdCluster own = EtcdCluster.start(3);
                MasterGroupCluster group = new MasterGroupCluster(tmp, own, "lose-etcd", 3, 2, false)) {
            group.awaitLeader(-1, Duration.ofSeconds(60));
            StoreClient client = group.client();
            MemorySegment bytes = Bytes.random(arena, TestCluster.SLICE + 3, 6);
            client.put("e/before", bytes, PutOptions.defaults());
            List<EtcdMemberStatus> members = client.status().etcd();
            int lost = members.stream().filter(m -> !m.leader()).findFirst().map(members::indexOf).orElseThrow();

            own.kill(lost);
            // A metadata write in flight on the master's connection to the member that died has an unknown outcome,
            // which the client reports and does not repeat; the group serves on, so a write after it lands.
            AtomicInteger attempts = new AtomicInteger();
            AtomicReference<String> written = new AtomicReference<>();
            Awaits.until(Duration.ofSeconds(30), "a put to land on the two etcd members left", () -> {
                String key = "e/after-" + attempts.incrementAndGet();
                try {
                    client.put(key, bytes, PutOptions.defaults());
                } catch (StoreException e) {
                    if (e.code() != StoreException.Code.UNAVAILABLE) {
                        throw e;
                    }
                    return false;
                }
                written.set(key);
                return true;
            });
            assertThat(Bytes.equal(Bytes.readWhole(client, "e/before", arena), bytes)).isTrue();
            assertThat(Bytes.equal(Bytes.readWhole(client, written.get(), arena), bytes)).isTrue();
            List<EtcdMemberStatus> after = client.status().etcd();
            assertThat(after.get(lost).healthy()).isFalse();
            assertThat(after.get(lost).error()).isNotEmpty();
            assertThat(after).filteredOn(EtcdMemberStatus::healthy).hasSize(2);
        }
    }
}

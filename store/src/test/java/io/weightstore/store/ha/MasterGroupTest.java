package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.Bytes;
import io.weightstore.store.EtcdCluster;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.MasterGroupCluster;
import io.weightstore.store.Metrics;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.security.Authentication;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Three masters in this JVM on a 3-member etcd: one leads, the others send clients to it, and a hand-over loses nothing. */
class MasterGroupTest {
    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(3);

    @TempDir
    Path tmp;

    @Test
    void followersNameTheLeaderAndAHandOverKeepsEverySealedObject() throws Exception {
        try (Arena arena = Arena.ofShared();
                MasterGroupCluster group = new MasterGroupCluster(tmp, ETCD.cluster(), "handover", 3, 3, false)) {
            int leader = group.awaitLeader(-1, Duration.ofSeconds(10));
            StoreClient client = group.client();
            MemorySegment bytes = Bytes.random(arena, 3 * TestCluster.SLICE + 17, 3);
            client.put("kept/a", bytes, PutOptions.defaults().withReplicas(2));

            int follower = (leader + 1) % 3;
            try (GrpcMasterApi direct = GrpcMasterApi.connect(group.address(follower), Authentication.insecure())) {
                assertThatThrownBy(direct::status).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                        .hasMessageContaining("not the leader").hasMessageContaining("the leader is " + group.address(leader));
            }
            StoreStatus status = client.status();
            assertThat(status.masters()).extracting(MasterMember::address).containsExactlyInAnyOrder(group.address(0), group.address(1),
                    group.address(2));
            assertThat(status.masters()).filteredOn(MasterMember::leader).singleElement()
                    .extracting(MasterMember::address).isEqualTo(group.address(leader));
            assertThat(status.etcd()).hasSize(3).allSatisfy(m -> assertThat(m.healthy()).isTrue());
            assertThat(status.etcd()).filteredOn(m -> m.leader()).hasSize(1);
            assertThat(status.nodesUp()).isEqualTo(3);
            // Only the leader reports the cluster; a follower reports its calls, which it refused.
            assertThat(Metrics.value(group.metricsOf(leader).registry(), "weightstore_master_serving")).isEqualTo(1);
            assertThat(Metrics.value(group.metricsOf(leader).registry(), "weightstore_master_nodes", "state", "up")).isEqualTo(3);
            assertThat(Metrics.value(group.metricsOf(follower).registry(), "weightstore_master_serving")).isZero();
            assertThat(Metrics.reported(group.metricsOf(follower).registry(), "weightstore_master_nodes")).isFalse();
            assertThat(Metrics.value(group.metricsOf(follower).registry(), "weightstore_master_calls", "code", "UNAVAILABLE",
                    "method", "Status")).isGreaterThanOrEqualTo(1);

            long handedOver = System.nanoTime();
            group.shutDown(leader);
            int next = group.awaitLeader(leader, Duration.ofSeconds(10));
            System.out.printf("hand-over on close: %d ms%n", (System.nanoTime() - handedOver) / 1_000_000);
            assertThat(next).isNotEqualTo(leader);
            // The new leader starts from the copy it kept current while it followed, not from a load of every record.
            assertThat(Metrics.value(group.metricsOf(next).registry(), "weightstore_master_takeovers", "from", "copy")).isEqualTo(1);
            assertThat(Bytes.equal(Bytes.readWhole(client, "kept/a", arena), bytes)).isTrue();
            client.put("kept/b", bytes, PutOptions.defaults().withReplicas(2));
            assertThat(client.list("kept/")).hasSize(2);
        }
    }

    @Test
    void withEtcdOutOfReachAFollowerNamesNoLeaderOnceALeaseHasPassed() throws Exception {
        try (EtcdCluster lone = EtcdCluster.start(1);
                MasterGroupCluster group = new MasterGroupCluster(tmp, lone, "outage", 2, 1, false)) {
            int leader = group.awaitLeader(-1, Duration.ofSeconds(10));
            int follower = 1 - leader;
            try (GrpcMasterApi direct = GrpcMasterApi.connect(group.address(follower), Authentication.insecure())) {
                assertThatThrownBy(direct::status).hasMessageContaining("the leader is " + group.address(leader));
                lone.kill(0);
                // The default lease is 2 s: past it, nothing etcd said vouches for the old leader any more.
                Thread.sleep(3_000);
                assertThatThrownBy(direct::status).hasMessageContaining("is not the leader; no leader is elected yet")
                        .hasMessageNotContaining(group.address(leader));
            }
        }
    }
}

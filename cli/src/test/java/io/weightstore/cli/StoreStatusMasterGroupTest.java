package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.store.EtcdCluster;
import io.weightstore.store.MasterGroupCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code store status} against a group of masters on a real etcd, the masters in this JVM. */
class StoreStatusMasterGroupTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aMasterOfTheGroupThatIsDownIsShownUnreachableWithWhyInTheTableAndInJson() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1);
                MasterGroupCluster group = new MasterGroupCluster(tmp, etcd, "status", 3, 1, false)) {
            int leader = group.awaitLeader(-1, Duration.ofSeconds(10));
            int down = (leader + 1) % 3;
            String gone = group.address(down);
            group.shutDown(down);
            // Gone from etcd's live masters once its lease is: the leader stops listing it.
            Awaits.until(Duration.ofSeconds(10), "the leader to stop listing " + gone,
                    () -> !CliRun.of("store", "status", "--store", group.address(leader)).out().contains(gone));

            CliRun table = CliRun.of("store", "status", "--store", group.masterList());
            assertThat(table.exitCode()).as(table.err()).isZero();
            assertThat(table.out()).containsPattern(group.address(leader) + " +leader")
                    .containsPattern(gone + " +UNREACHABLE: .*master unavailable");
            CliRun json = CliRun.of("store", "status", "--store", group.masterList(), "--json");
            assertThat(json.exitCode()).as(json.err()).isZero();
            JsonNode masters = JSON.readTree(json.out()).get("masters");
            assertThat(masters).hasSize(3);
            assertThat(masters).filteredOn(m -> m.get("address").asText().equals(gone)).singleElement().satisfies(m -> {
                assertThat(m.get("state").asText()).isEqualTo("UNREACHABLE");
                assertThat(m.get("leader").asBoolean()).isFalse();
                assertThat(m.get("error").asText()).contains("master unavailable");
            });
            assertThat(masters).filteredOn(m -> m.get("leader").asBoolean()).singleElement()
                    .satisfies(m -> assertThat(m.get("state").asText()).isEqualTo("LEADER"));
        }
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.ReplicaVerdict;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The master keeps a checkpoint's copies by itself, on real processes: a master and node processes,
 * each node's pool on a private tmpfs (so every copy crosses the data plane), nodes killed with
 * SIGKILL and bytes flipped inside a pool. Each step ends with {@code model verify}, which checks
 * every copy of every slice where it lies and every byte against the manifest's SHA-256.
 */
class SelfHealingProcessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    @TempDir
    Path tmp;

    @Test
    void scrubberReplicaCountsDrainAndForgetKeepTheCheckpointWhole() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = ChaosCluster.withMasterFlags(tmp.resolve("cluster"), List.of(), 5, "1M", "128M",
                "--scrub-rate", "64M")) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "kept", 2);

            // A copy gone bad: its node's scrubber finds it, and the master has it rewritten from the good one.
            ObjectMeta weights = store.list("weights/kept/files/").stream().filter(o -> o.key().endsWith(".safetensors")).findFirst()
                    .orElseThrow();
            ReplicaRef rotten = weights.slice(0).replicas().getFirst();
            cluster.nodeById(rotten.nodeId()).flipBytes(rotten.offset() + 10_000, 4);
            Awaits.until(PATIENCE, "the scrubber to find the flipped bytes and the copy to be rewritten", () -> {
                try (ObjectReader object = store.open(weights.key())) {
                    return object.checkReplicas().stream().allMatch(v -> v.state() == ReplicaVerdict.State.OK);
                }
            });
            JsonNode status = json(run(cluster, "store", "status", "--json"));
            assertThat(status.get("nodes")).filteredOn(n -> n.get("info").get("nodeId").asText().equals(rotten.nodeId()))
                    .singleElement().satisfies(n -> assertThat(n.get("load").get("bytesScrubbed").asLong()).isPositive());
            assertVerifies(cluster);

            // The count raised and lowered online, the copies made node to node.
            CliRun raised = run(cluster, "model", "replicate", "kept", "--replicas", "3", "--wait", "--json");
            assertThat(raised.exitCode()).as(raised.err()).isZero();
            JsonNode raisedJson = json(raised);
            assertThat(raisedJson.get("set").get("replicas").asInt()).isEqualTo(3);
            assertThat(raisedJson.get("copies").get("state").asText()).isEqualTo("OK");
            assertThat(fileSlices(store)).allSatisfy(s -> assertThat(s.replicas()).hasSize(3));
            assertThat(json(run(cluster, "store", "status", "--json")).get("nodes")).as("copies came from node to node")
                    .anySatisfy(n -> assertThat(n.get("load").get("bytesCopied").asLong()).isPositive());
            assertVerifies(cluster);
            CliRun lowered = run(cluster, "model", "replicate", "kept", "--replicas", "2", "--wait");
            assertThat(lowered.exitCode()).as(lowered.err()).isZero();
            assertThat(lowered.out()).contains("kept copies: OK");
            assertThat(fileSlices(store)).allSatisfy(s -> assertThat(s.replicas()).hasSize(2));
            assertVerifies(cluster);

            // A drain: the node ends holding nothing, and nothing new goes on it.
            String leaving = busiestNode(store, "kept", List.of());
            CliRun drained = run(cluster, "store", "node", "drain", leaving, "--wait", "--json");
            assertThat(drained.exitCode()).as(drained.err()).isZero();
            assertThat(json(drained).get("replicasLeft").asInt()).isZero();
            assertThat(allSlices(store)).allSatisfy(s -> assertThat(s.nodeIds()).doesNotContain(leaving));
            assertThat(run(cluster, "store", "status").out()).contains("up, draining");
            assertVerifies(cluster);

            // A node killed: DEGRADED while it is down (within the master's 10-minute repair delay); forgotten, its copies
            // are made again at once.
            String dead = busiestNode(store, "kept", List.of(leaving));
            cluster.nodeById(dead).process().kill();
            Awaits.until(PATIENCE, "the master to see node " + dead + " down and the replicas DEGRADED", () -> {
                JsonNode now = json(run(cluster, "store", "status", "--json"));
                return now.get("replication").get("state").asText().equals("DEGRADED") && now.get("replication").get("slicesWaiting")
                        .asInt() > 0;
            });
            assertThat(json(run(cluster, "model", "inspect", "kept", "--json")).get("copies").get("state").asText())
                    .isEqualTo("DEGRADED");
            CliRun degraded = run(cluster, "model", "verify", "kept");
            assertThat(degraded.exitCode()).as("a copy on a node that is down").isEqualTo(1);
            assertThat(degraded.out()).contains("DEGRADED");
            CliRun forgot = run(cluster, "store", "node", "forget", dead);
            assertThat(forgot.exitCode()).as(forgot.err()).isZero();
            awaitEverySliceAtItsCount(store, "kept", List.of(dead, leaving));
            assertVerifies(cluster);
            assertThat(TensorDigests.ofLoad(cluster.client(), "kept", () -> {})).isEqualTo(checkpoint.digests());
        }
    }

    @Test
    void aNodeKilledForGoodOnASecureClusterHasItsCopiesMadeAgainOverTlsOnceTheRepairDelayHasPassed() throws Exception {
        Path ca = tmp.resolve("ca");
        assertThat(CliRun.of("cert", "init", "--dir", ca.toString()).exitCode()).isZero();
        // The master takes the CA's tokens file, which the first token creates.
        assertThat(CliRun.of("cert", "token", "--dir", ca.toString(), "--role", "reader", "--name", "engine", "--out",
                tmp.resolve("engine").toString()).exitCode()).isZero();
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = ChaosCluster.secure(tmp.resolve("cluster"), ca, List.of("--repair-after", "2s"), 4, "1M",
                "128M")) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "healed", 2);
            String gone = busiestNode(store, "healed", List.of());
            cluster.nodeById(gone).process().kill();

            awaitEverySliceAtItsCount(store, "healed", List.of(gone));
            assertThat(store.status().nodes()).as("copied node to node, over the TLS data plane")
                    .anySatisfy(n -> assertThat(n.load().bytesCopied()).isPositive());
            String admin = cluster.credentials("admin", "admin").toString();
            CliRun verified = CliRun.of("model", "verify", "healed", "--store", cluster.master(), "--credentials", admin);
            assertThat(verified.exitCode()).as(verified.out() + verified.err()).isZero();
            CliRun inspected = CliRun.of("model", "inspect", "healed", "--json", "--store", cluster.master(), "--credentials", admin);
            assertThat(json(inspected).get("copies").get("state").asText()).isEqualTo("OK");
            assertThat(TensorDigests.ofLoad(cluster.client(), "healed", () -> {})).isEqualTo(checkpoint.digests());
        }
    }

    /** The node that holds the most copies of the checkpoint's slices, leaving out {@code except}. */
    private static String busiestNode(StoreClient store, String id, List<String> except) throws Exception {
        Map<String, Long> held = store.list("weights/" + id + "/").stream().flatMap(o -> o.slices().stream())
                .flatMap(s -> s.nodeIds().stream()).filter(n -> !except.contains(n))
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        return held.entrySet().stream().max(Map.Entry.comparingByValue(Comparator.naturalOrder())).orElseThrow().getKey();
    }

    private static void awaitEverySliceAtItsCount(StoreClient store, String id, List<String> gone) throws Exception {
        Awaits.until(PATIENCE, "every slice of " + id + " at its count, none on " + gone, () -> store.list("weights/" + id + "/").stream()
                .allMatch(o -> o.slices().stream().allMatch(s -> s.replicas().size() == o.replicas()
                        && s.nodeIds().stream().noneMatch(gone::contains))));
    }

    private static List<SliceMeta> fileSlices(StoreClient store) throws Exception {
        return store.list("weights/kept/files/").stream().flatMap(o -> o.slices().stream()).toList();
    }

    private static List<SliceMeta> allSlices(StoreClient store) throws Exception {
        return store.list("weights/kept/").stream().flatMap(o -> o.slices().stream()).toList();
    }

    private static void assertVerifies(ChaosCluster cluster) {
        CliRun verified = run(cluster, "model", "verify", "kept");
        assertThat(verified.exitCode()).as(verified.out() + verified.err()).isZero();
    }

    private static CliRun run(ChaosCluster cluster, String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--store";
        all[args.length + 1] = cluster.master();
        return CliRun.of(all);
    }

    private static JsonNode json(CliRun run) throws Exception {
        assertThat(run.exitCode()).as(run.err()).isZero();
        return JSON.readTree(run.out());
    }
}

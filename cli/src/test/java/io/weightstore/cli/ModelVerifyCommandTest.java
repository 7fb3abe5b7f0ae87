package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.TestCluster;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code model verify} tells the truth about every copy: rot in one copy, a node back without its
 * pool, and both copies bad, on a real loopback cluster of three nodes with two copies of each slice.
 */
class ModelVerifyCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WEIGHTS = "model-00001-of-00008.safetensors";

    @TempDir
    Path tmp;

    private TestCluster cluster;

    @BeforeEach
    void importTwoCopies() throws IOException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 1), source, b -> {});
        CliRun imported = run("model", "import", "--checkpoint-id", "tiny", "--model-id", "org/tiny", "--source", source.toString(),
                "--replicas", "2");
        assertThat(imported.exitCode()).as(imported.err()).isZero();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private CliRun run(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--store";
        all[args.length + 1] = cluster.masterAddress();
        return CliRun.of(all);
    }

    private String weightsKey() throws IOException {
        try (StoreClient client = cluster.client()) {
            return client.list("weights/tiny/files/model-").getFirst().key();
        }
    }

    @Test
    void fourFlippedBytesInOneCopyAreDegradedUntilRepaired() throws Exception {
        String key = weightsKey();
        for (long offset = 4000; offset < 4004; offset++) {
            cluster.flipByte(key, 0, offset);
        }
        CliRun found = run("model", "verify", "tiny");
        assertThat(found.exitCode()).as(found.out() + found.err()).isEqualTo(1);
        assertThat(found.out()).containsPattern(WEIGHTS + "\\s+DEGRADED\\s+data whole, but 1 of 2 copies bad")
                .containsPattern("tiny: DEGRADED \\(1 of \\d+ files not OK, full check\\)");
        JsonNode json = JSON.readTree(run("model", "verify", "tiny", "--json").out());
        assertThat(json.get("status").asText()).isEqualTo("DEGRADED");
        assertThat(json.get("ok").asBoolean()).isFalse();
        JsonNode bad = json.get("files").findValues("badCopies").stream().filter(c -> !c.isEmpty()).findFirst().orElseThrow();
        assertThat(bad.get(0).get("state").asText()).isEqualTo("CORRUPT");

        CliRun repaired = run("model", "verify", "tiny", "--repair");
        assertThat(repaired.exitCode()).as(repaired.out() + repaired.err()).isZero();
        assertThat(repaired.out()).containsPattern("repair " + WEIGHTS + ": slice 0 rewritten in place on node-\\S+ from node-")
                .containsPattern("tiny: OK \\(0 of \\d+ files not OK, full check and repair, 1 copy repaired\\)");
        CliRun after = run("model", "verify", "tiny");
        assertThat(after.exitCode()).as(after.out()).isZero();
        assertThat(after.out()).contains("tiny: OK");
    }

    @Test
    void aManifestRottenInEveryCopyIsReportedWithoutFilesItCannotName() throws Exception {
        String manifest = "weights/tiny/manifest";
        int copies;
        try (StoreClient client = cluster.client()) {
            copies = client.stat(manifest).slice(0).replicas().size();
        }
        for (int copy = 0; copy < copies; copy++) {
            cluster.flipByte(manifest, 0, copy, 10);
        }
        CliRun run = run("model", "verify", "tiny");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).as(run.err()).containsPattern("\\(manifest\\)\\s+CORRUPT").doesNotContain(WEIGHTS)
                .doesNotContain("files not OK")
                .containsPattern("tiny: CORRUPT \\(no copy of the manifest could be read, so no file could be named; full check\\)");
        CliRun list = run("model", "list");
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).containsPattern("tiny\\s.*FAILED");
        CliRun inspect = run("model", "inspect", "tiny");
        assertThat(inspect.exitCode()).isEqualTo(1);
        assertThat(inspect.err()).contains("no replica could serve", "weights/tiny/manifest", "checksum mismatch");
    }

    @Test
    void aNodeBackWithoutItsPoolIsDegradedByFullAndQuickChecksUntilRepaired() throws Exception {
        String lost = cluster.restartNodeWithoutItsPool(0);
        for (String[] verify : new String[][] {{"model", "verify", "tiny"}, {"model", "verify", "tiny", "--quick"}}) {
            CliRun run = run(verify);
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out()).containsPattern("\\(manifest\\)\\s+DEGRADED").contains("node " + lost + " is down")
                    .contains("tiny: DEGRADED");
        }
        CliRun repaired = run("model", "verify", "tiny", "--repair");
        assertThat(repaired.exitCode()).as(repaired.out() + repaired.err()).isZero();
        assertThat(repaired.out()).contains("in place of " + lost, "tiny: OK");
        assertThat(run("model", "verify", "tiny", "--quick").exitCode()).isZero();

        CliRun forget = run("store", "node", "forget", lost);
        assertThat(forget.exitCode()).as(forget.err()).isZero();
        assertThat(forget.out()).contains("forgot node " + lost + ": 0 replicas dropped");
        assertThat(run("store", "status").out()).doesNotContain(lost);
    }

    @Test
    void bothCopiesBadAreCorruptAndRepairCannotFixThem() throws Exception {
        String key = weightsKey();
        cluster.flipByte(key, 0, 0, 4000);
        cluster.flipByte(key, 0, 1, 4000);
        for (String[] verify : new String[][] {{"model", "verify", "tiny"}, {"model", "verify", "tiny", "--repair"}}) {
            CliRun run = run(verify);
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out()).containsPattern(WEIGHTS + "\\s+CORRUPT\\s+slice 0 has no good copy").contains("tiny: CORRUPT");
        }
    }

    @Test
    void aQuickCheckReportsAFileWhoseHeaderIsRottenInEveryCopyAsCorrupt() throws Exception {
        String key = weightsKey();
        cluster.flipByte(key, 0, 0, 100);
        cluster.flipByte(key, 0, 1, 100);
        CliRun run = run("model", "verify", "tiny", "--quick");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).as(run.err()).containsPattern(WEIGHTS + "\\s+CORRUPT\\s+.*no replica could serve slice 0")
                .contains("tiny: CORRUPT");
        JsonNode json = JSON.readTree(run("model", "verify", "tiny", "--quick", "--json").out());
        assertThat(json.get("status").asText()).isEqualTo("CORRUPT");
    }

    @Test
    void quickAndRepairTogetherIsAUsageError() {
        CliRun run = run("model", "verify", "tiny", "--quick", "--repair");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--repair needs the full check");
    }
}

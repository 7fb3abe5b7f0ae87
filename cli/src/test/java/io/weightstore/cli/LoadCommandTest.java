package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** {@code weightstore load} on the embedded store, after the quickstart has imported its tiny model. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class LoadCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String URI = "weightstore://" + QuickstartCommand.CHECKPOINT_ID;

    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp);

    @BeforeEach
    void quickstart() {
        CliRun run = CliRun.of("quickstart");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("== 6. load it with tensor parallelism 2", "quickstart OK");
    }

    @Test
    void allRanksTogetherReadTheCheckpointOnceWithoutAmplification() throws IOException {
        CliRun run = CliRun.of("load", URI, "--tp-size", "4", "--all-ranks", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode ranks = JSON.readTree(run.out());
        assertThat(ranks).hasSize(4);
        long total = ranks.get(0).get("checkpointBytes").asLong();
        long sum = 0;
        for (JsonNode rank : ranks) {
            assertThat(rank.get("amplification").asDouble()).isLessThanOrEqualTo(1.05);
            assertThat(rank.get("bytesRead").asLong()).isLessThan(total);
            sum += rank.get("bytesRead").asLong();
        }
        // Norms are replicated; everything else is read exactly once across the ranks.
        assertThat(sum).isGreaterThanOrEqualTo(total).isLessThan(total + 4 * 64 * 4 * 5);
    }

    @Test
    void aCheckpointImportedWithColumnLayoutsGivesEachRankTheSameTensorsReadFromThem() throws IOException {
        CliRun bad = CliRun.of("model", "import", "--checkpoint-id", "laid-out", "--model-id", "org/tiny", "--source",
                tmp.resolve("quickstart/tiny-llama").toString(), "--tp-layout", "3");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--tp-layout", "worldSize=3");
        CliRun planAlone = CliRun.of("model", "import", "--checkpoint-id", "laid-out", "--model-id", "org/tiny", "--source",
                tmp.resolve("quickstart/tiny-llama").toString(), "--plan", "qwen2");
        assertThat(planAlone.exitCode()).isEqualTo(2);
        assertThat(planAlone.err()).contains("--plan", "--tp-layout");
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "laid-out", "--model-id", "org/tiny", "--source",
                tmp.resolve("quickstart/tiny-llama").toString(), "--tp-layout", "2,4");
        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(CliRun.of("model", "inspect", "laid-out").out()).contains("column layout for 2 ranks: 4 files",
                "column layout for 4 ranks: 4 files");

        CliRun load = CliRun.of("load", "weightstore://laid-out", "--tp-size", "4", "--all-ranks", "--json");
        assertThat(load.exitCode()).as(load.err()).isZero();
        for (JsonNode rank : JSON.readTree(load.out())) {
            assertThat(rank.get("fromColumnLayouts").asInt()).as("o_proj and down_proj of each layer").isPositive();
        }
        CliRun strided = CliRun.of("load", "weightstore://laid-out", "--tp-size", "4", "--tp-rank", "2", "--no-column-layouts",
                "--json");
        assertThat(JSON.readTree(strided.out()).get(0).get("fromColumnLayouts").asInt()).isZero();
        for (int rank = 0; rank < 4; rank++) {
            String r = String.valueOf(rank);
            assertThat(digests(CliRun.of("load", "weightstore://laid-out", "--digest", "--tp-size", "4", "--tp-rank", r).out()))
                    .isNotEmpty().isEqualTo(digests(CliRun.of("load", URI, "--digest", "--tp-size", "4", "--tp-rank", r).out()));
        }
    }

    /** The tensor lines of a {@code load --digest}. */
    private static List<String> digests(String out) {
        return out.lines().filter(l -> l.matches("^\\S+ [A-Z0-9]+ \\[.*\\] [0-9a-f]{64}$")).toList();
    }

    @Test
    void digestNamesEveryTensorWithItsShapeAndHash() {
        CliRun run = CliRun.of("load", URI, "--digest");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("AMPLIFICATION").containsPattern("(?m)^model\\.norm\\.weight F32 \\[64\\] [0-9a-f]{64}$");
        CliRun rank1 = CliRun.of("load", URI, "--digest", "--tp-size", "2", "--tp-rank", "1");
        assertThat(rank1.out()).containsPattern("(?m)^model\\.embed_tokens\\.weight F32 \\[256, 64\\] [0-9a-f]{64}$")
                .containsPattern("(?m)^model\\.layers\\.0\\.self_attn\\.o_proj\\.weight F32 \\[64, 32\\] [0-9a-f]{64}$");
    }

    @Test
    void generateFromTheStoreEqualsGenerateFromTheDirectory() throws IOException {
        CliRun store = CliRun.of("generate", "--model", URI, "--prompt", "hello there", "--max-tokens", "8", "--json");
        assertThat(store.exitCode()).as(store.err()).isZero();
        CliRun disk = CliRun.of("generate", "--model", tmp.resolve("quickstart/tiny-llama").toString(), "--prompt", "hello there",
                "--max-tokens", "8", "--json");
        JsonNode fromStore = JSON.readTree(store.out());
        assertThat(fromStore.get("generatedTokens").asInt()).isPositive();
        assertThat(fromStore.get("completion").asText()).isEqualTo(JSON.readTree(disk.out()).get("completion").asText());
        String[] seeded = {"generate", "--model", URI, "--prompt", "hello there", "--max-tokens", "8", "--temperature", "1",
            "--seed", "3", "--json"};
        assertThat(JSON.readTree(CliRun.of(seeded).out()).get("completion"))
                .isEqualTo(JSON.readTree(CliRun.of(seeded).out()).get("completion"));
        CliRun missing = CliRun.of("generate", "--model", tmp.resolve("nowhere").toString(), "--prompt", "x");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("neither weightstore://ID nor a model directory");
    }

    @Test
    void badArgumentsExitTwo() {
        assertThat(CliRun.of("load", URI, "--tp-size", "2", "--tp-rank", "2").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("load", "http://x").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("load", URI, "--tp-rank", "0", "--all-ranks").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("load", "weightstore://missing").exitCode()).isEqualTo(1);
        assertThat(CliRun.of("load", URI, "--tp-size", "3").err()).contains("does not split evenly over 3 ranks");
    }
}

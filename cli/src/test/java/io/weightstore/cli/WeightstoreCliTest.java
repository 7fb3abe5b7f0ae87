package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class WeightstoreCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void helpListsEveryCommandWithADescription() {
        CliRun run = CliRun.of("--help");
        assertThat(run.exitCode()).isZero();
        for (String command : new String[] {"quickstart", "synth", "file", "store", "master", "node", "help"}) {
            assertThat(run.out()).containsPattern("(?m)^  " + command + "\\s+\\S+");
        }
        assertThat(run.out()).contains("./weightstore test");
    }

    @Test
    void helpFollowsEveryWordToTheCommandTheyName() {
        CliRun help = CliRun.of("help", "model", "import");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).startsWith("Usage: weightstore model import").isEqualTo(CliRun.of("model", "import", "--help").out());
        assertThat(CliRun.of("help", "store", "node", "drain").out()).isEqualTo(CliRun.of("store", "node", "drain", "--help").out());
        assertThat(CliRun.of("help").out()).isEqualTo(CliRun.of("--help").out());

        CliRun unknown = CliRun.of("help", "model", "imprt");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("'model imprt': model has no command 'imprt'; its commands: ", "import", "replicate");
        CliRun hidden = CliRun.of("help", "quickstat");
        assertThat(hidden.err()).contains("has no command 'quickstat'; its commands: quickstart,").doesNotContain("cluster-training");
        CliRun leaf = CliRun.of("help", "model", "import", "extra");
        assertThat(leaf.exitCode()).isEqualTo(2);
        assertThat(leaf.err()).contains("'model import extra': import takes no command");
    }

    @Test
    void theEmbeddedStoresHolderIsNamedByItsVerbAloneNeverByItsArguments() {
        assertThat(WeightstoreCli.holderName(WeightstoreCli.commandLine(), "serve", "--model", "weightstore://m", "--api-key", "k3y"))
                .isEqualTo("weightstore serve");
        assertThat(WeightstoreCli.holderName(WeightstoreCli.commandLine(), "model", "verify", "m", "--quick"))
                .isEqualTo("weightstore model verify");
        assertThat(WeightstoreCli.holderName(WeightstoreCli.commandLine(), "--version")).isEqualTo("weightstore");
    }

    @Test
    void everyVerbsVersionFlagPrintsTheBuildAsTheTopCommandDoes() {
        CliRun top = CliRun.of("--version");
        assertThat(top.out()).startsWith("weightstore ");
        for (String[] verb : new String[][] {{"model", "--version"}, {"model", "import", "--version"}, {"synth", "-V"}}) {
            CliRun run = CliRun.of(verb);
            assertThat(run.exitCode()).as(String.join(" ", verb)).isZero();
            assertThat(run.out()).as(String.join(" ", verb)).isEqualTo(top.out());
        }
    }

    @Test
    void everyFlagOfSynthIsExplained() {
        CliRun run = CliRun.of("synth", "--help");
        for (String flag : new String[] {"--out", "--size", "--arch", "--hidden", "--layers", "--heads", "--kv-heads",
                "--intermediate", "--vocab", "--dtype", "--max-shard-size", "--seed", "--json"}) {
            assertThat(run.out()).containsPattern(flag + "[= ].*\\w");
        }
    }

    @Test
    void synthWritesACheckpointThatInspectReads() throws IOException {
        Path out = tmp.resolve("ckpt");
        CliRun synth = CliRun.of("synth", "--out", out.toString(), "--dtype", "bf16", "--layers", "3", "--seed", "9", "--json");
        assertThat(synth.exitCode()).as(synth.err()).isZero();
        JsonNode result = JSON.readTree(synth.out());
        assertThat(result.get("layers").asInt()).isEqualTo(3);
        assertThat(result.get("dtype").asText()).isEqualTo("BF16");
        String shard = out.resolve(result.get("files").findValues("path").stream().map(JsonNode::asText)
                .filter(p -> p.endsWith(".safetensors")).findFirst().orElseThrow()).toString();

        CliRun table = CliRun.of("file", "inspect", shard);
        assertThat(table.exitCode()).isZero();
        assertThat(table.out()).contains("NAME", "DTYPE", "SHAPE", "BF16", "metadata format = pt");

        CliRun json = CliRun.of("file", "inspect", shard, "--json");
        JsonNode header = JSON.readTree(json.out());
        assertThat(header.get("fileLength").asLong()).isEqualTo(Files.size(Path.of(shard)));
        assertThat(header.get("tensors")).isNotEmpty();
        assertThat(header.get("tensors").get(0).get("dataOffsets").get(0).asLong()).isZero();
    }

    @Test
    void sizePresetPicksDimensionsAndFlagsOverrideThem() throws IOException {
        CliRun run = CliRun.of("synth", "--out", tmp.resolve("c").toString(), "--size", "20M", "--vocab", "400", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode result = JSON.readTree(run.out());
        assertThat(result.get("vocab").asInt()).isEqualTo(400);
        assertThat(result.get("hidden").asInt()).isGreaterThan(64);
    }

    @Test
    void invalidFileExitsOneWithTheRuleOnStderr() throws IOException {
        Path shard = tmp.resolve("bad.safetensors");
        CliRun.of("synth", "--out", tmp.resolve("ckpt").toString());
        Files.copy(tmp.resolve("ckpt/model-00001-of-00001.safetensors"), shard);
        try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 3);
        }
        CliRun run = CliRun.of("file", "inspect", shard.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("bad.safetensors", "(truncated)", "[file_length]");
    }

    @Test
    void missingFileExitsOne() {
        CliRun run = CliRun.of("file", "inspect", tmp.resolve("nope.safetensors").toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no such file", "nope.safetensors");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(CliRun.of("synth").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("no-such-command").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("file").exitCode()).isEqualTo(2);
        CliRun badDtype = CliRun.of("synth", "--out", tmp.resolve("x").toString(), "--dtype", "f8");
        assertThat(badDtype.exitCode()).isEqualTo(2);
        assertThat(badDtype.err()).contains("--dtype must be f32, bf16 or f16, found 'f8'");
        CliRun badSize = CliRun.of("synth", "--out", tmp.resolve("y").toString(), "--size", "lots");
        assertThat(badSize.exitCode()).isEqualTo(2);
        assertThat(badSize.err()).contains("size 'lots'");
    }

    @Test
    void quickstartRunsEndToEndInItsOwnHome() {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        try {
            CliRun run = CliRun.of("quickstart", "--dir", tmp.toString());
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("quickstart OK");
            assertThat(CliRun.of("quickstart", "--dir", tmp.toString()).exitCode()).as("a second run replaces the first").isZero();
            assertThat(tmp.resolve("home/store/pool")).exists();
        } finally {
            System.clearProperty(WeightstoreHome.PROPERTY);
        }
    }

    @Test
    void quickstartWithoutGenerateStopsAfterTheLoad() {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        try {
            CliRun run = CliRun.of("quickstart", "--dir", tmp.toString(), "--no-generate");
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("== 6. load it").doesNotContain("== 7.")
                    .contains("quickstart OK (without step 7, generate: --no-generate)");
        } finally {
            System.clearProperty(WeightstoreHome.PROPERTY);
        }
    }
}

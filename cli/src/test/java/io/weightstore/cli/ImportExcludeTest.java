package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

/** {@code model import --exclude}: a repository's files that no engine reads stay out of the store. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class ImportExcludeTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    private Path source;

    @BeforeEach
    void synthesize() throws Exception {
        source = tmp.resolve("source");
        assertThat(CliRun.of("synth", "--out", source.toString(), "--size", "4M").exitCode()).isZero();
        // As a Llama's repository keeps its weights a second time, for PyTorch.
        Files.createDirectories(source.resolve("original"));
        Files.write(source.resolve("original/consolidated.00.pth"), new byte[1 << 20]);
        Files.writeString(source.resolve("original/params.json"), "{}");
    }

    @Test
    void excludedFilesAreNotStoredAndTheImportSaysHowMany() throws Exception {
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "original/");

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("READY", "2 excluded");
        CliRun inspect = CliRun.of("model", "inspect", "tiny");
        assertThat(inspect.out()).contains("config.json", "left out of the source: original/")
                .doesNotContain("original/consolidated.00.pth", "original/params.json");
        assertThat(CliRun.of("model", "verify", "tiny").out()).contains("tiny: OK");
    }

    @Test
    void theJsonListsTheExcludedFiles() throws Exception {
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "*.pth", "--json");

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        JsonNode result = new ObjectMapper().readTree(imported.out());
        assertThat(result.get("excludedFiles")).singleElement()
                .satisfies(f -> assertThat(f.asText()).isEqualTo("original/consolidated.00.pth"));
        assertThat(result.get("manifest").get("files"))
                .anySatisfy(f -> assertThat(f.get("path").asText()).isEqualTo("original/params.json"));
    }

    @Test
    void anEmptyExcludeIsAUsageErrorAndStoresNothing() {
        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("an exclude pattern is empty");
        assertThat(CliRun.of("model", "list", "--json").out().strip()).isEqualTo("[ ]");
    }

    @Test
    void aPatternThatMatchesNoFileIsWarnedOf() {
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "orignal/", "--exclude", "*.pth");

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.err()).contains("warning: exclude pattern orignal/ matched no file of " + source)
                .doesNotContain("pattern *.pth");
    }

    @Test
    void aReplaceLeavesOutWhatTheVersionBeforeLeftOutAndSaysSo() throws Exception {
        assertThat(CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "original/").exitCode()).isZero();
        Files.writeString(source.resolve("config.json"), Files.readString(source.resolve("config.json")).replaceFirst("\\{",
                "{\"edited\": true, "));

        CliRun replaced = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source",
                source.toString(), "--replace");

        assertThat(replaced.exitCode()).as(replaced.err()).isZero();
        assertThat(replaced.err()).contains("leaving out original/, as the version replaced did (--no-exclude stores every file)");
        assertThat(CliRun.of("model", "inspect", "tiny").out()).contains("left out of the source: original/")
                .doesNotContain("original/consolidated.00.pth");
        CliRun everything = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source",
                source.toString(), "--replace", "--no-exclude");
        assertThat(everything.exitCode()).as(everything.err()).isZero();
        assertThat(everything.err()).doesNotContain("leaving out");
        assertThat(CliRun.of("model", "inspect", "tiny").out()).contains("original/consolidated.00.pth")
                .doesNotContain("left out of the source");
    }

    @Test
    void noExcludeWithAnExcludeOrWithoutAReplaceIsAUsageError() {
        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "original/", "--no-exclude");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--no-exclude and --exclude contradict each other");
        CliRun notAReplace = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source",
                source.toString(), "--no-exclude");
        assertThat(notAReplace.exitCode()).isEqualTo(2);
        assertThat(notAReplace.err()).contains("--no-exclude is for a --replace");
    }

    @Test
    void excludingEveryFileSaysSo() {
        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/tiny", "--source", source.toString(),
                "--exclude", "*");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("has no files but the", "excluded by [*]");
    }
}

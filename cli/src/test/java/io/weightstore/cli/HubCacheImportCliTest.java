package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.weights.testing.HubCacheLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

/** {@code model import --source} a snapshot of the Hugging Face hub cache, as {@code huggingface-cli download} leaves it. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class HubCacheImportCliTest {
    private static final String COMMIT = "5f1e0c2d9a7b3c4d5e6f708192a3b4c5d6e7f809";

    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    private Path snapshot() throws Exception {
        Path download = tmp.resolve("download");
        assertThat(CliRun.of("synth", "--out", download.toString(), "--size", "4M").exitCode()).isZero();
        return HubCacheLayout.write(download, tmp.resolve("hub"), "acme/tiny-llama", COMMIT);
    }

    @Test
    void aSnapshotImportsUnderTheRepositoryAndCommitItsPathNames() throws Exception {
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", snapshot().toString());

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported tiny (acme/tiny-llama@" + COMMIT + ")", "READY");
        assertThat(CliRun.of("model", "verify", "tiny").out()).contains("tiny: OK");
    }

    @Test
    void flagsNameTheModelAndRevisionOverWhatThePathSays() throws Exception {
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "acme/renamed", "--revision", "main",
                "--source", snapshot().toString());

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported tiny (acme/renamed@main)");
    }

    @Test
    void theRepositoryImportsTheSnapshotItsMainRefNames() throws Exception {
        Path repository = snapshot().getParent().getParent();

        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", repository.toString());

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported tiny (acme/tiny-llama@" + COMMIT + ")", "READY");
    }

    @Test
    void aCommitOfTheRepositoryNamesItsSnapshot() throws Exception {
        Path repository = snapshot().getParent().getParent();

        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", repository.toString(), "--revision",
                COMMIT);

        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported tiny (acme/tiny-llama@" + COMMIT + ")");
    }

    @Test
    void aRevisionTheRepositoryDoesNotHaveIsRefusedNamingWhatItHas() throws Exception {
        Path repository = snapshot().getParent().getParent();

        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", repository.toString(), "--revision", "v2");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("has no revision 'v2': no refs/v2 and no snapshots/v2 (refs: main; snapshots: " + COMMIT + ")");
        assertThat(CliRun.of("model", "list", "--json").out().strip()).isEqualTo("[ ]");
    }

    @Test
    void theCacheGivenWholeIsRefusedNamingASnapshot() throws Exception {
        Path snapshot = snapshot();

        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", tmp.resolve("hub").toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("is a Hugging Face hub cache, not a checkpoint: give a snapshot of one of its repositories, such as "
                + snapshot.toRealPath());
    }

    @Test
    void aCorruptBlobFailsTheImportNamingTheFileToDownloadAgain() throws Exception {
        Path snapshot = snapshot();
        Path shard;
        try (Stream<Path> files = Files.list(snapshot)) {
            shard = files.filter(f -> f.toString().endsWith(".safetensors")).sorted().findFirst().orElseThrow();
        }
        Path blob = shard.toRealPath();
        byte[] bytes = Files.readAllBytes(blob);
        bytes[bytes.length - 1] ^= 1;
        Files.write(blob, bytes);

        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", snapshot.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains(shard.getFileName() + " is corrupt: its blob " + blob, "hf download acme/tiny-llama "
                + shard.getFileName() + " --revision " + COMMIT + " --cache-dir " + tmp.resolve("hub").toRealPath() + " --force-download");
        assertThat(CliRun.of("model", "list").out()).doesNotContain("READY");
    }

    @Test
    void anyOtherDirectoryNeedsItsModelId() throws Exception {
        Path plain = tmp.resolve("plain");
        assertThat(CliRun.of("synth", "--out", plain.toString(), "--size", "4M").exitCode()).isZero();

        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--source", plain.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--model-id is required: --source " + plain + " is no Hugging Face cache snapshot");
        assertThat(CliRun.of("model", "list", "--json").out().strip()).isEqualTo("[ ]");
    }
}

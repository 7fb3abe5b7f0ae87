package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** Errors name the path, key or flag they are about, with the exit code of their kind; no exception class names. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class CommandErrorMessagesTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    private static void assertNoClassName(CliRun run) {
        assertThat(run.err()).doesNotContainPattern("[A-Za-z]+Exception:");
    }

    /** On a fresh machine, opening the store first would create an embedded store, and its pool, for nothing. */
    @Test
    void aMalformedCheckpointIdIsRefusedBeforeTheStoreIsOpened() {
        for (String verb : List.of("verify", "inspect", "delete", "prune", "export")) {
            List<String> args = new ArrayList<>(List.of("model", verb, "no/such id"));
            if (verb.equals("export")) {
                args.addAll(List.of("--output", tmp.resolve("out").toString()));
            }
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(verb + ": " + run.err()).isEqualTo(ExitCodes.USAGE);
            assertNoClassName(run);
        }
        assertThat(tmp.resolve("home").resolve("store")).as("no embedded store created").doesNotExist();
    }

    @Test
    void aSizeThatIsNoSizeIsRefusedNamingItsFlag() {
        // Each: the flag given a wrong size, and the command.
        List<List<String>> cases = List.of(List.of("--buffer", "load", "weightstore://absent", "--buffer", "12Q"),
                List.of("--size", "synth", "--out", tmp.resolve("s").toString(), "--size", "big"),
                List.of("--max-shard-size", "synth", "--out", tmp.resolve("s").toString(), "--max-shard-size", "1X"),
                List.of("--slice-size", "store", "put", "k", tmp.toString(), "--slice-size", "-1M"),
                List.of("--capacity", "node", "--capacity", "lots", "--pool", tmp.resolve("pool").toString(), "--insecure"),
                List.of("--slice-size", "master", "--slice-size", "64Q", "--insecure"));
        for (List<String> each : cases) {
            List<String> command = each.subList(1, each.size());
            CliRun run = CliRun.of(command.toArray(String[]::new));
            assertThat(run.exitCode()).as(command + ": " + run.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err()).as(String.join(" ", command)).contains(each.getFirst(), "is not a number of bytes");
            assertNoClassName(run);
        }
        assertThat(tmp.resolve("home").resolve("store")).as("no embedded store created").doesNotExist();
    }

    @Test
    void fileInspectOnADirectoryNamesIt() {
        CliRun run = CliRun.of("file", "inspect", tmp.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains(tmp + ": is a directory, not a file");
        assertNoClassName(run);
    }

    @Test
    void synthIntoAnExistingCheckpointNamesTheDirectory() {
        Path out = tmp.resolve("ckpt");
        assertThat(CliRun.of("synth", "--out", out.toString()).exitCode()).isZero();
        CliRun again = CliRun.of("synth", "--out", out.toString());
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("already holds a checkpoint: " + out);
        assertNoClassName(again);
    }

    @Test
    void aSynthTooLargeForItsFileSystemIsRefusedBeforeItWritesAnything() throws Exception {
        Path out = tmp.resolve("big");
        // --size stops at 1024 layers (about 3 TiB); more layers of its widest model outgrow whatever disk this runs on.
        SynthSpec widest = SynthSpec.forSize(1L << 40, DType.F32, 1L << 30, 0);
        long perLayer = withLayers(widest, 2).weightBytes() - withLayers(widest, 1).weightBytes();
        String layers = Long.toString(Files.getFileStore(tmp).getUsableSpace() / perLayer + 1);
        // Were the check missing, synth would write until the disk is full: in a JVM of its own with a file size limit
        // (ulimit -f, in blocks of 512 or 1024 bytes), its first shard fails at 64 MiB at most instead.
        List<String> fileSizeLimit = List.of("sh", "-c", "ulimit -f 65536 && exec \"$@\"", "sh");
        CliProcess synth = CliProcess.start(tmp.resolve("synth.log"), Map.of(), fileSizeLimit,
                "synth", "--out", out.toString(), "--size", "1T", "--layers", layers);

        assertThat(synth.await()).as(synth.output()).isEqualTo(ExitCodes.FAILURE);
        assertThat(synth.output()).contains("writing " + out + ": its file system has ", " bytes free, the checkpoint needs ")
                .doesNotContain("Exception");
        assertThat(out).doesNotExist();
    }

    private static SynthSpec withLayers(SynthSpec spec, int layers) {
        return new SynthSpec(spec.arch(), spec.hidden(), layers, spec.heads(), spec.kvHeads(), spec.intermediate(), spec.vocab(),
                spec.dtype(), spec.maxShardSize(), spec.seed());
    }

    @Test
    void storePutOnAnExistingKeySaysToUseReplace() throws IOException {
        Path file = Files.writeString(tmp.resolve("f.txt"), "hello");
        assertThat(CliRun.of("store", "put", "k", file.toString()).exitCode()).isZero();
        CliRun again = CliRun.of("store", "put", "k", file.toString());
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("object k exists; use --replace to overwrite it");
        assertThat(CliRun.of("store", "put", "k", file.toString(), "--replace").exitCode()).isZero();
    }

    @Test
    void aManifestANewerWeightstoreWroteIsAFailureThatSaysToUpgradeNotAUsageError() throws IOException {
        Path manifest = Files.writeString(tmp.resolve("manifest.json"), "{\"schemaVersion\": 99, \"files\": []}");
        assertThat(CliRun.of("store", "put", "weights/newer/manifest", manifest.toString()).exitCode()).isZero();

        CliRun verify = CliRun.of("model", "verify", "newer");
        assertThat(verify.exitCode()).isEqualTo(1);
        assertThat(verify.err()).contains("has schema version 99", "upgrade it");
        assertNoClassName(verify);
    }

    @Test
    void loadWithAMissingPlanFileIsAUsageErrorAtAnyTensorParallelSize() {
        Path plan = tmp.resolve("no-plan.json");
        for (String tp : new String[] {"1", "2"}) {
            CliRun run = CliRun.of("load", "weightstore://absent", "--plan", plan.toString(), "--tp-size", tp);
            assertThat(run.exitCode()).as("tp " + tp).isEqualTo(2);
            assertThat(run.err()).contains("shard plan '" + plan + "' is neither a preset", plan + " does not exist");
        }
    }

    @Test
    void aPlanFileThatIsNotJsonOrNamesAnUnknownSplitIsAUsageErrorNamingTheFile() throws Exception {
        Path notJson = Files.writeString(tmp.resolve("p.json"), "not json");
        CliRun run = CliRun.of("load", "weightstore://absent", "--plan", notJson.toString(), "--tp-size", "2");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("shard plan " + notJson + " is not valid JSON", "(line 1, column").doesNotContain("REDACTED");
        Path badSplit = Files.writeString(tmp.resolve("q.json"), "{\"rules\": [{\"pattern\": \".*\", \"split\": \"dim7\"}]}");
        CliRun split = CliRun.of("load", "weightstore://absent", "--plan", badSplit.toString(), "--tp-size", "2");
        assertThat(split.exitCode()).isEqualTo(2);
        assertThat(split.err()).contains("shard plan " + badSplit + ": split must be dim0, dim1 or replicate, found 'dim7'");
    }

    @Test
    void aTimeoutWithoutWaitIsAUsageErrorNotIgnored() {
        for (List<String> command : List.of(List.of("model", "replicate", "absent", "--replicas", "2", "--timeout", "5s"),
                List.of("store", "node", "drain", "n1", "--timeout", "5s"))) {
            CliRun run = CliRun.of(command.toArray(String[]::new));
            assertThat(run.exitCode()).as(command.toString()).isEqualTo(2);
            assertThat(run.err()).as(command.toString()).contains("--timeout bounds --wait, which was not given");
            assertNoClassName(run);
        }
        // Not "add --wait": with --cancel, that is refused too.
        CliRun cancel = CliRun.of("store", "node", "drain", "n1", "--cancel", "--timeout", "5s");
        assertThat(cancel.exitCode()).isEqualTo(2);
        assertThat(cancel.err()).contains("with --cancel there is nothing to wait for").doesNotContain("add --wait");
    }

    @Test
    void aStoreUriThatNamesNoCheckpointSaysTheFormExpectedAndWhatIsWrong() {
        CliRun generate = CliRun.of("generate", "--model", "weightstore://", "--prompt", "x");
        assertThat(generate.exitCode()).isEqualTo(2);
        assertThat(generate.err()).contains("expected weightstore://CHECKPOINT_ID, found 'weightstore://' (no checkpoint id)");
        CliRun load = CliRun.of("load", "weightstore://a b");
        assertThat(load.exitCode()).isEqualTo(2);
        assertThat(load.err()).contains("expected weightstore://CHECKPOINT_ID, found 'weightstore://a b'",
                "(illegal character in authority at index 15)");
        assertNoClassName(generate);
        assertNoClassName(load);
    }

    @Test
    void aMissingAndAnEmptySourceDirectoryAreBothUsageErrors() throws IOException {
        Path missing = tmp.resolve("missing");
        Path empty = Files.createDirectory(tmp.resolve("empty"));
        Path file = Files.writeString(tmp.resolve("file"), "x");
        CliRun noDir = CliRun.of("model", "import", "--checkpoint-id", "a", "--model-id", "o/a", "--source", missing.toString());
        CliRun emptyDir = CliRun.of("model", "import", "--checkpoint-id", "a", "--model-id", "o/a", "--source", empty.toString());
        CliRun notDir = CliRun.of("model", "import", "--checkpoint-id", "a", "--model-id", "o/a", "--source", file.toString());
        assertThat(noDir.exitCode()).isEqualTo(2);
        assertThat(noDir.err()).contains("--source " + missing + " does not exist");
        assertThat(emptyDir.exitCode()).isEqualTo(2);
        assertThat(emptyDir.err()).contains(empty + " has no files");
        assertThat(notDir.exitCode()).isEqualTo(2);
        assertThat(notDir.err()).contains("--source " + file + " is not a directory");
    }

    @Test
    void aSourceWhoseConfigIsNotJsonIsRefusedBeforeAnythingIsStored() throws IOException {
        Path source = tmp.resolve("broken-config");
        assertThat(CliRun.of("synth", "--out", source.toString(), "--size", "4M").exitCode()).isZero();
        Files.writeString(source.resolve("config.json"), "{\"hidden_size\": 64,");
        CliRun run = CliRun.of("model", "import", "--checkpoint-id", "b", "--model-id", "o/b", "--source", source.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("config.json is not valid JSON: ", "(line 1, column");
        assertNoClassName(run);
        assertThat(CliRun.of("model", "list").out()).doesNotContain("o/b");
    }

    @Test
    void aValueTheCodeBelowRefusesIsNamedByItsFlag() {
        CliRun files = CliRun.of("model", "import", "--checkpoint-id", "a", "--model-id", "o/a", "--source", tmp.toString(),
                "--parallel-files", "0");
        assertThat(files.exitCode()).isEqualTo(2);
        assertThat(files.err()).contains("--parallel-files must be >= 1, found 0").doesNotContain("parallelFiles");
        CliRun connections = CliRun.of("load", "weightstore://absent", "--connections", "0");
        assertThat(connections.exitCode()).isEqualTo(2);
        assertThat(connections.err()).contains("--connections must be >= 1, found 0").doesNotContain("connections=");
    }
}

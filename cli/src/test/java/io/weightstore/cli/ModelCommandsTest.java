package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.weights.testing.FileSha256;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.Manifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The model verbs from the command line against a real loopback cluster, some from other JVMs. */
class ModelCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private String store;
    private Path source;

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        store = cluster.masterAddress();
        source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 1), source, b -> {});
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private CliRun run(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--store";
        all[args.length + 1] = store;
        return CliRun.of(all);
    }

    @Test
    void fullCycleFromTheCommandLine() throws IOException {
        CliRun imported = run("model", "import", "--checkpoint-id", "tiny", "--model-id", "org/tiny", "--source", source.toString(),
                "--replicas", "2");
        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported tiny", "READY");

        assertThat(run("model", "list").out()).contains("ID", "tiny", "org/tiny", "READY");
        JsonNode listed = JSON.readTree(run("model", "list", "--json").out());
        assertThat(listed.get(0).get("status").asText()).isEqualTo("READY");

        CliRun inspect = run("model", "inspect", "tiny");
        assertThat(inspect.out()).contains("SLICES", "REPLICAS", "F32", "config.json");
        JsonNode report = JSON.readTree(run("model", "inspect", "tiny", "--json").out());
        assertThat(report.get("files")).allSatisfy(f -> assertThat(f.get("replicas").asInt()).isEqualTo(2));

        CliRun verify = run("model", "verify", "tiny");
        assertThat(verify.exitCode()).isZero();
        assertThat(verify.out()).contains("tiny: OK");
        assertThat(run("model", "verify", "tiny", "--quick").exitCode()).isZero();

        Path out = tmp.resolve("export");
        assertThat(run("model", "export", "tiny", "--output", out.toString()).exitCode()).isZero();
        try (var files = Files.list(source)) {
            for (Path file : files.toList()) {
                assertThat(Files.readAllBytes(out.resolve(file.getFileName()))).as(file.toString()).isEqualTo(Files.readAllBytes(file));
            }
        }

        CliRun exportedAgain = run("model", "export", "tiny", "--path", "config.json", "--output", tmp.resolve("config.json").toString(),
                "--json");
        assertThat(exportedAgain.exitCode()).as(exportedAgain.err()).isZero();
        JsonNode exported = JSON.readTree(exportedAgain.out());
        assertThat(exported.get("files")).singleElement().satisfies(f -> assertThat(f.get("path").asText()).isEqualTo("config.json"));
        assertThat(exported.get("bytes").asLong()).isEqualTo(Files.size(source.resolve("config.json")));

        CliRun delete = run("model", "delete", "tiny", "--json");
        assertThat(delete.exitCode()).as(delete.err()).isZero();
        JsonNode deleted = JSON.readTree(delete.out());
        assertThat(deleted.get("checkpointId").asText()).isEqualTo("tiny");
        assertThat(deleted.get("files").asInt()).isEqualTo(listed.get(0).get("files").size());
        try (StoreClient client = cluster.client()) {
            assertThat(client.list("weights/tiny/")).isEmpty();
        }
    }

    @Test
    void badInputsExitNonZeroAndWriteNothing() throws IOException {
        CliRun badId = run("model", "import", "--checkpoint-id", "../x", "--model-id", "a/b", "--source", source.toString());
        assertThat(badId.exitCode()).isEqualTo(2);
        assertThat(badId.err()).contains("checkpoint id '../x' must match");
        CliRun twoLines = run("model", "import", "--checkpoint-id", "ok", "--model-id", "a\nb", "--source", source.toString());
        assertThat(twoLines.exitCode()).isEqualTo(2);
        assertThat(twoLines.err()).contains("a model id (ORG/NAME) must not hold control characters: 'a?b'");
        CliRun noRevision = run("model", "import", "--checkpoint-id", "ok", "--model-id", "a/b", "--revision", "", "--source",
                source.toString());
        assertThat(noRevision.exitCode()).isEqualTo(2);
        assertThat(noRevision.err()).contains("a revision is required");
        Files.writeString(source.resolve("model.safetensors.index.json"), "{\"weight_map\":{\"x\":\"missing.safetensors\"}}");
        CliRun badIndex = run("model", "import", "--checkpoint-id", "ok", "--model-id", "a/b", "--source", source.toString());
        assertThat(badIndex.exitCode()).isEqualTo(1);
        assertThat(badIndex.err()).contains("missing.safetensors");
        assertThat(run("model", "list", "--json").out().strip()).isEqualTo("[ ]");
        try (StoreClient client = cluster.client()) {
            assertThat(client.list("weights/")).isEmpty();
        }
        assertThat(run("model", "verify", "ghost").exitCode()).isEqualTo(1);
    }

    @Test
    void moreReplicasThanNodesUpIsAFailureOfTheRequestNotAUsageErrorForImportAndReplicateAlike() {
        CliRun imported = run("model", "import", "--checkpoint-id", "many", "--model-id", "org/tiny", "--source", source.toString(),
                "--replicas", "4");
        assertThat(imported.exitCode()).as(imported.err()).isEqualTo(ExitCodes.FAILURE);
        assertThat(imported.err()).contains("replicas=4 needs 4 storage nodes up; the store has 3");

        importTiny();
        CliRun replicated = run("model", "replicate", "tiny", "--replicas", "4");
        assertThat(replicated.exitCode()).as(replicated.err()).isEqualTo(ExitCodes.FAILURE);
        assertThat(replicated.err()).contains("4 replicas need 4 nodes that are up and not being drained, 3 are");
    }

    @Test
    void aManifestThatCannotBeReadIsListedInJsonAsTheTableShowsItWithNothingMadeUp() throws IOException {
        importTiny();
        try (StoreClient client = cluster.client()) {
            client.put("weights/junk/manifest", "not a manifest".getBytes(StandardCharsets.UTF_8), PutOptions.defaults());
        }

        CliRun table = run("model", "list");
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out()).containsPattern("junk +FAILED +- +- .* UNREADABLE")
                .contains("junk: the manifest cannot be read: manifest weights/junk/manifest is not a manifest");
        CliRun listed = run("model", "list", "--json");
        assertThat(listed.exitCode()).as(listed.err()).isZero();
        JsonNode junk = JSON.readTree(listed.out()).get(0);
        assertThat(junk.properties()).extracting(Map.Entry::getKey)
                .containsExactly("checkpointId", "status", "createdAt", "importedBy", "manifestUnreadable", "problems");
        assertThat(junk.get("checkpointId").asText()).isEqualTo("junk");
        assertThat(junk.get("status").asText()).isEqualTo("FAILED");
        assertThat(junk.get("manifestUnreadable").asText()).startsWith("manifest weights/junk/manifest is not a manifest");
        String why = junk.get("manifestUnreadable").asText();
        assertThat(junk.get("problems")).singleElement()
                .satisfies(problem -> assertThat(problem.asText()).isEqualTo("the manifest cannot be read: " + why));
        JsonNode tiny = JSON.readTree(listed.out()).get(1);
        assertThat(tiny.get("checked").asBoolean()).isTrue();
        assertThat(tiny.has("manifestUnreadable")).isFalse();
    }

    @Test
    void anExportIntoADirectoryThatHoldsFilesIsRefusedAndLeavesItAsItWas() throws IOException {
        importTiny();
        Path other = Files.createDirectory(tmp.resolve("other"));
        Path stale = Files.writeString(other.resolve("model-00009-of-00009.safetensors"), "another checkpoint's shard");

        CliRun refused = run("model", "export", "tiny", "--output", other.toString());
        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("output directory " + other + " is not empty");
        try (var left = Files.list(other)) {
            assertThat(left).containsExactly(stale);
        }
        Path file = Files.writeString(tmp.resolve("c.json"), "{}");
        CliRun ontoAFile = run("model", "export", "tiny", "--output", file.toString());
        assertThat(ontoAFile.exitCode()).as(ontoAFile.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(ontoAFile.err()).contains("output " + file + " is a file", "--path exports one file");
        assertThat(file).hasContent("{}");
        Path empty = Files.createDirectory(tmp.resolve("empty"));
        CliRun intoEmpty = run("model", "export", "tiny", "--output", empty.toString());
        assertThat(intoEmpty.exitCode()).as(intoEmpty.err()).isZero();
    }

    @Test
    void anExportOfOneFileToADirectoryIsRefusedNamingTheDirectory() throws IOException {
        importTiny();
        Path dir = Files.createDirectory(tmp.resolve("dir"));

        CliRun refused = run("model", "export", "tiny", "--path", "config.json", "--output", dir.toString());
        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("output " + dir + " is a directory", dir.resolve("config.json").toString())
                .doesNotContain(".partial");
        assertThat(dir).isEmptyDirectory();
    }

    private void importTiny() {
        CliRun imported = run("model", "import", "--checkpoint-id", "tiny", "--model-id", "org/tiny",
                "--source", source.toString());
        assertThat(imported.exitCode()).as(imported.err()).isZero();
    }

    @Test
    void twoImportsOfOneIdFromTwoProcessesOneWins() throws Exception {
        Path big = tmp.resolve("big");
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 256, 4, 4, 2, 512, 2000, DType.F32, 2 << 20, 1), big, b -> {});
        String[] args = {"model", "import", "--checkpoint-id", "race", "--model-id", "org/race", "--source", big.toString(),
            "--store", store};
        CliProcess first = CliProcess.start(tmp.resolve("first.log"), args);
        CliProcess second = CliProcess.start(tmp.resolve("second.log"), args);
        int a = first.await();
        int b = second.await();
        assertThat(List.of(a, b)).as(first.output() + "\n---\n" + second.output()).containsExactlyInAnyOrder(0, 1);
        String loser = a == 0 ? second.output() : first.output();
        assertThat(loser).containsAnyOf("is locked by", "already READY");
        try (StoreClient client = cluster.client()) {
            Manifest manifest = new Catalog(client).readyManifest(new CheckpointId("race"));
            assertThat(manifest.status()).isEqualTo(CheckpointStatus.READY);
        }
        CliRun verify = run("model", "verify", "race");
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    }

    @Test
    void importKilledMidwayResumesAndEndsReadyWithIdenticalHashes() throws Exception {
        Path big = tmp.resolve("big");
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 512, 8, 8, 2, 1024, 4000, DType.F32, 1 << 20, 1), big, b -> {});
        CliProcess doomed = CliProcess.start(tmp.resolve("doomed.log"), "model", "import", "--checkpoint-id", "resume",
                "--model-id", "org/resume", "--source", big.toString(), "--store", store, "--parallel-files", "1");
        try (StoreClient client = cluster.client()) {
            long deadline = System.currentTimeMillis() + 60_000;
            while (client.list("weights/resume/files/").size() < 3 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            doomed.kill();
            Manifest interrupted = new Catalog(client).manifest(new CheckpointId("resume")).orElseThrow();
            assertThat(interrupted.status()).as(doomed.output()).isEqualTo(CheckpointStatus.IMPORTING);
        }
        // Files stored but not yet recorded in the manifest are not the checkpoint's yet: neither counted nor CORRUPT.
        CliRun inspect = run("model", "inspect", "resume");
        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).containsPattern("IMPORTING.*\\n(.*\\n)*  copies: \\d+ of \\d+ files not stored").contains("MISSING");
        CliRun resumed = run("model", "import", "--checkpoint-id", "resume", "--model-id", "org/resume", "--source", big.toString(),
                "--json");
        assertThat(resumed.exitCode()).as(resumed.err()).isZero();
        JsonNode result = JSON.readTree(resumed.out());
        assertThat(result.get("skippedFiles").asInt()).isPositive();
        assertThat(result.get("manifest").get("status").asText()).isEqualTo("READY");
        for (JsonNode file : result.get("manifest").get("files")) {
            assertThat(file.get("sha256").asText()).as(file.get("path").asText())
                    .isEqualTo(FileSha256.of(big.resolve(file.get("path").asText())));
        }
        assertThat(run("model", "verify", "resume").exitCode()).isZero();
    }

    @Test
    void aReplaceKilledMidwayLeavesTheVersionBeforeReadyAndARunAgainFinishesIt() throws Exception {
        Path first = tmp.resolve("first");
        Path second = tmp.resolve("second");
        // The same shapes, other weights: a fine-tune.
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 512, 8, 8, 2, 1024, 4000, DType.F32, 1 << 20, 1), first, b -> {});
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 512, 8, 8, 2, 1024, 4000, DType.F32, 1 << 20, 2), second, b -> {});
        String[] replace = {"model", "import", "--checkpoint-id", "tuned", "--model-id", "org/tuned", "--revision", "r2", "--source",
            second.toString(), "--replace", "--parallel-files", "1"};
        CliRun imported = run("model", "import", "--checkpoint-id", "tuned", "--model-id", "org/tuned", "--revision", "r1", "--source",
                first.toString());
        assertThat(imported.exitCode()).as(imported.err()).isZero();

        String[] withStore = Arrays.copyOf(replace, replace.length + 2);
        withStore[replace.length] = "--store";
        withStore[replace.length + 1] = store;
        CliProcess doomed = CliProcess.start(tmp.resolve("doomed.log"), withStore);
        try (StoreClient client = cluster.client()) {
            long deadline = System.currentTimeMillis() + 60_000;
            while (client.list("weights/tuned/v1/files/").size() < 3 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            doomed.kill();
        }
        CliRun listed = run("model", "list");
        assertThat(listed.out()).as(doomed.output()).contains("READY", "r1")
                .contains("tuned: a replace by revision r2 (version 1) is IMPORTING");
        JsonNode before = JSON.readTree(run("model", "list", "--json").out()).get(0);
        assertThat(before.get("revision").asText()).isEqualTo("r1");
        assertThat(before.get("replacement").get("status").asText()).isEqualTo("IMPORTING");
        CliRun verify = run("model", "verify", "tuned");
        assertThat(verify.exitCode()).as("the version before, whole: " + verify.out()).isZero();

        CliRun again = run(replace);
        assertThat(again.exitCode()).as(again.err()).isZero();
        JsonNode result = JSON.readTree(run("model", "list", "--json").out()).get(0);
        assertThat(result.get("revision").asText()).isEqualTo("r2");
        assertThat(result.get("version").asInt()).isEqualTo(1);
        assertThat(result.has("replacement")).isFalse();
        for (JsonNode file : result.get("files")) {
            assertThat(file.get("sha256").asText()).as(file.get("path").asText())
                    .isEqualTo(FileSha256.of(second.resolve(file.get("path").asText())));
        }
        assertThat(run("model", "verify", "tuned").exitCode()).isZero();
    }

    @Test
    void filesAReaderHeldAsAReplaceFinishedAreListedAndPrunedOnceItIsDone() throws Exception {
        assertThat(run("model", "import", "--checkpoint-id", "held", "--model-id", "org/held", "--source", source.toString())
                .exitCode()).isZero();
        Path weights;
        try (var files = Files.list(source)) {
            weights = files.filter(f -> f.toString().endsWith(".safetensors")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(weights);
        bytes[bytes.length - 1] ^= 1;
        Files.write(weights, bytes);
        try (StoreClient client = cluster.client()) {
            Catalog catalog = new Catalog(client);
            Manifest first = catalog.readyManifest(new CheckpointId("held"));
            try (var reader = catalog.file(first, first.file(weights.getFileName().toString()).orElseThrow()).open()) {
                CliRun replaced = run("model", "import", "--checkpoint-id", "held", "--model-id", "org/held", "--revision", "r2",
                        "--source", source.toString(), "--replace");
                assertThat(replaced.exitCode()).as(replaced.err()).isZero();
                assertThat(run("model", "list").out()).contains("held: 2 objects (", ") of earlier versions are left",
                        "'model prune held' removes them");
                assertThat(JSON.readTree(run("model", "list", "--json").out()).get(0).get("leftovers").get("objects").asInt())
                        .isEqualTo(2);
                CliRun refused = run("model", "prune", "held");
                assertThat(refused.exitCode()).isEqualTo(1);
                assertThat(refused.err()).contains("still being read", "--force");
            }
        }
        CliRun pruned = run("model", "prune", "held");
        assertThat(pruned.exitCode()).as(pruned.err()).isZero();
        assertThat(pruned.out()).contains("pruned held: 2 objects of earlier versions");
        assertThat(run("model", "list").out()).doesNotContain("earlier versions");
        assertThat(JSON.readTree(run("model", "prune", "held", "--json").out()).get("objects").asInt()).isZero();
    }
}

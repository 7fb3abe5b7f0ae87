package io.weightstore.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.SafetensorsFormatException.Rule;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class CheckpointDirectoryTest {
    @TempDir
    Path tmp;

    Path checkpoint;

    @BeforeEach
    void synthesize() throws IOException {
        checkpoint = tmp.resolve("ckpt");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 7), checkpoint, bytes -> {});
    }

    @Test
    void readsAValidCheckpointAndClassifiesItsFiles() throws IOException {
        CheckpointDirectory dir = CheckpointDirectory.read(checkpoint);
        assertThat(dir.files(FileKind.METADATA)).extracting(CheckpointFile::path)
                .contains("config.json", "tokenizer.json", "tokenizer_config.json", WeightIndex.FILE_NAME);
        assertThat(dir.files(FileKind.WEIGHT)).isNotEmpty().allSatisfy(f -> {
            assertThat(f.path()).matches("model-\\d{5}-of-\\d{5}\\.safetensors");
            assertThat(f.header()).hasValueSatisfying(h -> assertThat(h.fileLength()).isEqualTo(f.size()));
        });
        assertThat(dir.index()).hasValueSatisfying(i -> assertThat(i.weightMap()).containsKey("lm_head.weight"));
    }

    @Test
    void hiddenEntriesAreNotPartOfTheCheckpoint() throws IOException {
        Files.createDirectories(checkpoint.resolve(".cache/huggingface"));
        Files.writeString(checkpoint.resolve(".cache/huggingface/lock"), "x");
        Files.writeString(checkpoint.resolve(".DS_Store"), "x");
        assertThat(CheckpointDirectory.read(checkpoint).files()).extracting(CheckpointFile::path)
                .noneMatch(p -> p.startsWith("."));
    }

    @Test
    void nestedFilesGetSlashSeparatedPaths() throws IOException {
        Files.createDirectories(checkpoint.resolve("original"));
        Files.writeString(checkpoint.resolve("original/params.json"), "{}");
        assertThat(CheckpointDirectory.read(checkpoint).files()).extracting(CheckpointFile::path).contains("original/params.json");
    }

    @Test
    void indexNamingAMissingFileIsRefused() throws IOException {
        String index = Files.readString(checkpoint.resolve(WeightIndex.FILE_NAME));
        Files.writeString(checkpoint.resolve(WeightIndex.FILE_NAME), index.replaceFirst(
                "\"lm_head.weight\" : \"[^\"]+\"", "\"lm_head.weight\" : \"model-missing.safetensors\""));
        assertRefused(Rule.INDEX, "model-missing.safetensors");
    }

    @Test
    void indexPlacingATensorInTheWrongFileIsRefused() throws IOException {
        String index = Files.readString(checkpoint.resolve(WeightIndex.FILE_NAME));
        String first = "model-00001-of-";
        String wrong = index.replaceFirst("\"lm_head.weight\" : \"model-\\d{5}-of-", "\"lm_head.weight\" : \"" + first);
        assertThat(wrong).isNotEqualTo(index);
        Files.writeString(checkpoint.resolve(WeightIndex.FILE_NAME), wrong);
        assertRefused(Rule.INDEX, "does not contain it");
    }

    @Test
    void indexThatIsNotJsonIsRefused() throws IOException {
        Files.writeString(checkpoint.resolve(WeightIndex.FILE_NAME), "{\"weight_map\": [");
        assertRefused(Rule.INDEX, "not valid JSON");
        // One line for a person, saying where in the file.
        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint)).hasMessageContaining("(line 1, column")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aConfigThatIsNotAJsonObjectIsRefusedNamingWhereItBreaks() throws IOException {
        Path config = checkpoint.resolve(ModelConfig.FILE_NAME);
        Files.writeString(config, "{\"hidden_size\": 2048,\n \"num_hidden_layers\": }");
        assertRefused(Rule.CONFIG, "config.json is not valid JSON");
        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint)).hasMessageContaining("(line 2, column")
                .hasMessageNotContaining("\n");
        Files.writeString(config, "[1, 2]");
        assertRefused(Rule.CONFIG, "config.json must be a JSON object, found array");
        Files.writeString(config, "");
        assertRefused(Rule.CONFIG, "config.json must be a JSON object, found nothing");
        // Python's json refuses what follows the object ("Extra data"), so an engine in Python could not read it.
        Files.writeString(config, "{\"hidden_size\": 64} }");
        assertRefused(Rule.CONFIG, "config.json is not valid JSON: ");
        Files.writeString(config, "{\"hidden_size\": 64, \"rope\": {\"type\": 1}");
        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint))
                .hasMessageContaining("expected close marker for Object (start marker at line 1, column 1) (line 1, column 40)")
                .hasMessageNotContaining("Source");
    }

    @Test
    void aConfigAsPythonWritesItWithNanAndAKeyTwiceIsAccepted() throws IOException {
        Files.writeString(checkpoint.resolve(ModelConfig.FILE_NAME), "{\"rope_scaling\": NaN, \"eps\": Infinity, \"eps\": 1e-5}");
        assertThat(CheckpointDirectory.read(checkpoint).files()).extracting(CheckpointFile::path).contains(ModelConfig.FILE_NAME);
    }

    @Test
    void anIndexLargerThanAnIndexMayBeIsRefusedUnread() throws IOException {
        try (FileChannel index = FileChannel.open(checkpoint.resolve(WeightIndex.FILE_NAME), StandardOpenOption.WRITE)) {
            index.write(ByteBuffer.wrap(new byte[] {' '}), WeightIndex.MAX_BYTES);
        }
        assertRefused(Rule.INDEX, "more than the " + WeightIndex.MAX_BYTES);
    }

    @Test
    @Timeout(30)
    void aPipeNamedAsTheIndexIsNotPartOfTheCheckpointAndNeverRead() throws Exception {
        Path index = checkpoint.resolve(WeightIndex.FILE_NAME);
        Files.delete(index);
        assertThat(new ProcessBuilder("mkfifo", index.toString()).start().waitFor()).isZero();
        CheckpointDirectory dir = CheckpointDirectory.read(checkpoint);
        assertThat(dir.index()).isEmpty();
        assertThat(dir.files()).extracting(CheckpointFile::path).doesNotContain(WeightIndex.FILE_NAME);
    }

    @Test
    void truncatedShardIsRefusedWithItsName() throws IOException {
        String name = CheckpointDirectory.read(checkpoint).files(FileKind.WEIGHT).get(1).path();
        Path shard = checkpoint.resolve(name);
        try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 1);
        }
        assertRefused(Rule.FILE_LENGTH, name + ": ");
    }

    @Test
    void symlinkLeavingTheDirectoryIsRefused() throws IOException {
        Path outside = Files.writeString(tmp.resolve("secret.txt"), "outside");
        Files.createSymbolicLink(checkpoint.resolve("notes.txt"), outside);
        assertRefused(Rule.DIRECTORY, "symlink notes.txt points to");
    }

    @Test
    void symlinkInsideTheDirectoryIsFollowed() throws IOException {
        Files.createSymbolicLink(checkpoint.resolve("config-link.json"), checkpoint.resolve("config.json"));
        assertThat(CheckpointDirectory.read(checkpoint).files()).extracting(CheckpointFile::path).contains("config-link.json");
    }

    @Test
    void aHubCacheSnapshotIsReadThroughItsLinksIntoTheRepositorysBlobs() throws Exception {
        Path snapshot = hubSnapshot("models--acme--tiny-llama", "0123abcd");
        CheckpointFile shard = CheckpointDirectory.read(snapshot).files(FileKind.WEIGHT).getFirst();
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(shard.location())));
        Path blob = moveIntoBlobs(snapshot, shard.path(), sha256);

        CheckpointDirectory read = CheckpointDirectory.read(snapshot);

        CheckpointFile linked = read.files().stream().filter(f -> f.path().equals(shard.path())).findFirst().orElseThrow();
        assertThat(linked.location()).isEqualTo(blob.toRealPath());
        assertThat(linked.header()).isEqualTo(shard.header());
        assertThat(read.hubSnapshot()).hasValueSatisfying(hub -> {
            assertThat(hub.modelId()).isEqualTo("acme/tiny-llama");
            assertThat(hub.commit()).isEqualTo("0123abcd");
        });
        assertThat(read.namedSha256(linked)).contains(sha256);
        assertThat(read.namedSha256(read.files().stream().filter(f -> f.path().equals("config.json")).findFirst().orElseThrow()))
                .as("a file of the snapshot itself names no digest").isEmpty();
    }

    @Test
    void aHubCacheSnapshotsLinkIntoAnotherRepositorysBlobsIsRefused() throws Exception {
        Path snapshot = hubSnapshot("models--acme--tiny-llama", "0123abcd");
        Path other = Files.createDirectories(tmp.resolve("hub/models--other--model/blobs"));
        Files.move(snapshot.resolve("config.json"), other.resolve("c0ffee"));
        Files.createSymbolicLink(snapshot.resolve("config.json"), other.resolve("c0ffee"));

        assertThatThrownBy(() -> CheckpointDirectory.read(snapshot)).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("symlink config.json points to " + other.toRealPath().resolve("c0ffee")
                        + ", which is not a regular file inside " + snapshot.toRealPath() + " or "
                        + tmp.resolve("hub/models--acme--tiny-llama/blobs").toRealPath());
    }

    @Test
    void aDirectoryNamedLikeASnapshotOfNoModelRepositoryKeepsItsLinksInside() throws Exception {
        Path snapshot = hubSnapshot("datasets--acme--corpus", "0123abcd");
        moveIntoBlobs(snapshot, "config.json", "c0ffee");

        assertThat(HubCacheSnapshot.of(snapshot.toRealPath())).isEmpty();
        assertThatThrownBy(() -> CheckpointDirectory.read(snapshot)).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("symlink config.json points to");
    }

    @Test
    void aHubCacheRepositoryGivenWholeIsRefusedNamingItsMainSnapshot() throws Exception {
        String commit = "0123456789abcdef0123456789abcdef01234567";
        Path snapshot = hubSnapshot("models--acme--tiny-llama", commit);
        Path repository = snapshot.getParent().getParent();
        Files.createDirectories(repository.resolve("refs"));
        Files.writeString(repository.resolve("refs/main"), commit);

        assertThatThrownBy(() -> CheckpointDirectory.read(repository)).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining(repository.toRealPath() + " is a Hugging Face hub cache repository, not a checkpoint: give one of"
                        + " its snapshots, such as " + snapshot.toRealPath());
    }

    /** The synthesized checkpoint as the snapshot {@code commit} of {@code repository} in a hub cache, its files still its own. */
    private Path hubSnapshot(String repository, String commit) throws IOException {
        Path repo = Files.createDirectories(tmp.resolve("hub").resolve(repository));
        Files.createDirectories(repo.resolve("blobs"));
        Path snapshot = Files.createDirectories(repo.resolve("snapshots")).resolve(commit);
        Files.move(checkpoint, snapshot);
        return snapshot;
    }

    /** Moves the snapshot's file into the repository's blobs as {@code blobName}, and links it back, as the hub's client does. */
    private static Path moveIntoBlobs(Path snapshot, String file, String blobName) throws IOException {
        Path blob = snapshot.getParent().getParent().resolve("blobs").resolve(blobName);
        Files.move(snapshot.resolve(file), blob);
        Files.createSymbolicLink(snapshot.resolve(file), snapshot.resolve(file).getParent().relativize(blob));
        return blob;
    }

    @Test
    void excludedFilesAreNeitherReadNorValidatedAndAreListed() throws IOException {
        Files.createDirectories(checkpoint.resolve("original"));
        Files.writeString(checkpoint.resolve("original/consolidated.00.pth"), "pickled");
        Files.writeString(checkpoint.resolve("original/broken.safetensors"), "not a header");

        CheckpointDirectory read = CheckpointDirectory.read(checkpoint, ExcludedFiles.of(List.of("original/**")));

        assertThat(read.files()).extracting(CheckpointFile::path).noneMatch(p -> p.startsWith("original/")).contains("config.json");
        assertThat(read.excluded()).containsExactly("original/broken.safetensors", "original/consolidated.00.pth");
    }

    @Test
    void patternsMatchAsTheHubClientsExcludeDoes() {
        assertThat(ExcludedFiles.of(List.of("*.pth")).excludes(Path.of("original/consolidated.00.pth"))).as("* crosses '/'").isTrue();
        assertThat(ExcludedFiles.of(List.of("original/")).excludes(Path.of("original/params.json"))).as("a directory").isTrue();
        assertThat(ExcludedFiles.of(List.of("original")).excludes(Path.of("original/params.json"))).isFalse();
        assertThat(ExcludedFiles.of(List.of("model-0000?-of-*.safetensors")).excludes(Path.of("model-00001-of-00002.safetensors")))
                .isTrue();
        assertThat(ExcludedFiles.of(List.of("[!m]*")).excludes(Path.of("model.safetensors"))).isFalse();
        assertThat(ExcludedFiles.of(List.of("[!m]*")).excludes(Path.of("tokenizer.json"))).isTrue();
        assertThat(ExcludedFiles.of(List.of("notes[.txt")).excludes(Path.of("notes[.txt"))).as("a '[' that opens no set").isTrue();
        assertThat(ExcludedFiles.of(List.of("a.b")).excludes(Path.of("axb"))).as("'.' is itself").isFalse();
    }

    @Test
    void thePatternsThatLeftOutNothingAreNamed() {
        ExcludedFiles exclusion = ExcludedFiles.of(List.of("original/", "orignal/*"));

        assertThat(exclusion.unmatched(List.of("original/params.json"))).containsExactly("orignal/*");
    }

    @Test
    void anIndexNamingAnExcludedShardIsRefusedSayingItIsExcluded() throws IOException {
        String shard = CheckpointDirectory.read(checkpoint).files(FileKind.WEIGHT).getFirst().path();

        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint, ExcludedFiles.of(List.of(shard))))
                .isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("names file '" + shard + "', which is not a safetensors file of the checkpoint (it is excluded");
    }

    @Test
    void anEmptyExcludePatternIsRefused() {
        assertThatThrownBy(() -> ExcludedFiles.of(List.of(" ")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("an exclude pattern is empty");
    }

    @Test
    void aHubCacheGivenWholeIsRefusedNamingASnapshotOfItsRepositories() throws Exception {
        String commit = "0123456789abcdef0123456789abcdef01234567";
        Path snapshot = hubSnapshot("models--acme--tiny-llama", commit);
        Files.createDirectories(tmp.resolve("hub/models--acme--tiny-llama/refs"));
        Files.writeString(tmp.resolve("hub/models--acme--tiny-llama/refs/main"), commit + "\n");

        assertThatThrownBy(() -> CheckpointDirectory.read(tmp.resolve("hub"))).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining(tmp.resolve("hub").toRealPath() + " is a Hugging Face hub cache, not a checkpoint: give a snapshot"
                        + " of one of its repositories, such as " + snapshot.toRealPath());
    }

    @Test
    void aSnapshotsLinkMayLeadOnlyToABlobItselfNotIntoADirectoryBelowBlobs() throws Exception {
        Path snapshot = hubSnapshot("models--acme--tiny-llama", "0123abcd");
        Path nested = Files.createDirectories(snapshot.getParent().getParent().resolve("blobs/nested"));
        Files.move(snapshot.resolve("config.json"), nested.resolve("c0ffee"));
        Files.createSymbolicLink(snapshot.resolve("config.json"), nested.resolve("c0ffee"));

        assertThatThrownBy(() -> CheckpointDirectory.read(snapshot)).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("symlink config.json points to " + nested.toRealPath().resolve("c0ffee"));
    }

    @Test
    void aRepositoryWhoseBlobsAreALinkElsewhereIsReadThroughIt() throws Exception {
        Path snapshot = hubSnapshot("models--acme--tiny-llama", "0123abcd");
        Path repository = snapshot.getParent().getParent();
        Path elsewhere = Files.createDirectories(tmp.resolve("big-disk/blobs"));
        Files.delete(repository.resolve("blobs"));
        Files.createSymbolicLink(repository.resolve("blobs"), elsewhere);
        moveIntoBlobs(snapshot, "config.json", "c0ffee");

        CheckpointDirectory read = CheckpointDirectory.read(snapshot);

        assertThat(read.files()).filteredOn(f -> f.path().equals("config.json")).singleElement()
                .satisfies(f -> assertThat(f.location()).isEqualTo(elsewhere.toRealPath().resolve("c0ffee")));
    }

    @Test
    void aRepositorysSnapshotIsTheOneItsRefOrCommitNames() throws Exception {
        String commit = "0123456789abcdef0123456789abcdef01234567";
        Path snapshot = hubSnapshot("models--acme--tiny-llama", commit);
        Path repository = snapshot.getParent().getParent().toRealPath();
        Files.createDirectories(repository.resolve("refs/pr"));
        Files.writeString(repository.resolve("refs/main"), commit);
        Files.writeString(repository.resolve("refs/pr/1"), commit);

        assertThat(HubCacheRepository.snapshotOf(repository, null)).contains(snapshot.toRealPath());
        assertThat(HubCacheRepository.snapshotOf(repository, "pr/1")).contains(snapshot.toRealPath());
        assertThat(HubCacheRepository.snapshotOf(repository, commit)).contains(snapshot.toRealPath());
        assertThat(HubCacheRepository.snapshotOf(snapshot.toRealPath(), null)).as("no repository").isEmpty();
        assertThatThrownBy(() -> HubCacheRepository.snapshotOf(repository, "v2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no revision 'v2': no refs/v2 and no snapshots/v2 (refs: main, pr/1; snapshots: " + commit + ")");
        for (String notAName : List.of("/", "/etc/passwd", "../outside", "pr/../../x", ".", "", "main\n")) {
            assertThatThrownBy(() -> HubCacheRepository.snapshotOf(repository, notAName)).as(notAName)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is no name of a ref or a commit");
        }
        Files.writeString(repository.resolve("refs/main"), "fedcba9876543210fedcba9876543210fedcba98");
        assertThatThrownBy(() -> HubCacheRepository.snapshotOf(repository, "main")).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("revision 'main' of " + repository + " is commit 'fedcba9876543210fedcba9876543210fedcba98', which"
                        + " has no snapshot directory in it (snapshots: " + commit + ")");
        Files.writeString(repository.resolve("refs/main"), "../../../elsewhere");
        assertThatThrownBy(() -> HubCacheRepository.snapshotOf(repository, "main")).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("refs/main of " + repository + " holds no commit id");
    }

    @Test
    void aSnapshotThatIsALinkElsewhereIsNoSnapshotOfTheRepository() throws Exception {
        String commit = "0123456789abcdef0123456789abcdef01234567";
        Path snapshot = hubSnapshot("models--acme--tiny-llama", commit);
        Path repository = snapshot.getParent().getParent().toRealPath();
        Path elsewhere = Files.move(snapshot, tmp.resolve("elsewhere"));
        Files.createSymbolicLink(repository.resolve("snapshots").resolve(commit), elsewhere);
        Files.createDirectories(repository.resolve("refs"));
        Files.writeString(repository.resolve("refs/main"), commit);

        assertThatThrownBy(() -> HubCacheRepository.snapshotOf(repository, null)).isInstanceOf(SafetensorsFormatException.class)
                .hasMessageContaining("is commit '" + commit + "', which has no snapshot directory in it");
    }

    @Test
    void aRepositoryOfNoOrganisationNamesTheModelAlone() throws Exception {
        Path snapshot = hubSnapshot("models--gpt2", "0123abcd");
        Path cache = tmp.resolve("hub").toRealPath();

        assertThat(HubCacheSnapshot.of(snapshot.toRealPath())).hasValueSatisfying(hub -> {
            assertThat(hub.modelId()).isEqualTo("gpt2");
            assertThat(hub.cache()).isEqualTo(cache);
        });
    }

    @Test
    void aDirectoryReachedThroughASymlinkIsReadAsTheDirectoryItself() throws IOException {
        Path link = Files.createSymbolicLink(tmp.resolve("link"), checkpoint);

        assertThat(CheckpointDirectory.read(link).files()).isNotEmpty().extracting(CheckpointFile::path)
                .isEqualTo(CheckpointDirectory.read(checkpoint).files().stream().map(CheckpointFile::path).toList());
    }

    @Test
    void aTensorInTwoShardsIsRefusedNamingBothFiles() throws IOException {
        String shard = CheckpointDirectory.read(checkpoint).files(FileKind.WEIGHT).getFirst().path();
        Files.copy(checkpoint.resolve(shard), checkpoint.resolve("model-extra.safetensors"));

        assertRefused(Rule.DUPLICATE_KEY, "found in both '" + shard + "' and 'model-extra.safetensors'");
    }

    @Test
    void aSymlinkToNothingIsRefusedWithItsName() throws IOException {
        Files.createSymbolicLink(checkpoint.resolve("notes.txt"), checkpoint.resolve("gone.txt"));
        assertRefused(Rule.DIRECTORY, "symlink notes.txt points to " + checkpoint.resolve("gone.txt") + ", which does not exist");
    }

    @Test
    void aFileNameThatIsNotValidUtf8IsRefusedBeforeItCouldBeLostMidImport() throws Exception {
        // Java cannot name such a file; the shell writes the raw byte 0xE9, Latin-1's e acute.
        Process touch = new ProcessBuilder("bash", "-c", "touch \"$1\"/$'caf\\xe9.txt'", "bash", checkpoint.toString()).start();
        assertThat(touch.waitFor()).isZero();
        assertRefused(Rule.DIRECTORY, "cannot be read back as the same name");
    }

    @Test
    void aFileIsNotADirectory() {
        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint.resolve("config.json")))
                .isInstanceOf(SafetensorsFormatException.class).hasMessageContaining("not a directory");
    }

    private void assertRefused(Rule rule, String message) {
        assertThatThrownBy(() -> CheckpointDirectory.read(checkpoint))
                .asInstanceOf(InstanceOfAssertFactories.throwable(SafetensorsFormatException.class))
                .satisfies(e -> assertThat(e.rule()).isEqualTo(rule))
                .hasMessageContaining(message);
    }
}

package io.weightstore.weights;

import static io.weightstore.weights.CatalogContract.assertCheckpointError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.ValidatedDirectory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files opened again after validation, from the directories validation read, following no link on the way. */
class SourceTreeTest {
    @TempDir
    Path tmp;

    private Path source;
    private Path params;
    private Path elsewhere;

    @BeforeEach
    void lay() throws Exception {
        source = Files.createDirectory(tmp.resolve("source")).toRealPath();
        params = Files.writeString(Files.createDirectory(source.resolve("original")).resolve("params.json"), "{\"dim\": 64}");
        elsewhere = Files.createDirectory(tmp.resolve("elsewhere")).toRealPath();
        Files.writeString(Files.createDirectory(elsewhere.resolve("original")).resolve("params.json"), "secret: 420");
    }

    @Test
    void aFileIsOpenedWithTheAttributesOfWhatWasOpened() throws Exception {
        try (SourceTree tree = SourceTree.open(List.of(ValidatedDirectory.of(source)))) {
            SourceTree.Opened opened = tree.open("original/params.json", params);
            ByteBuffer bytes = ByteBuffer.allocate(64);
            try (FileChannel channel = opened.channel()) {
                channel.read(bytes, 0);
            }
            assertThat(new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8)).isEqualTo("{\"dim\": 64}");
            assertThat(opened.attributes().size()).isEqualTo(11);
            assertThat(tree.attributes("original/params.json", params).lastModifiedTime())
                    .isEqualTo(Files.getLastModifiedTime(params));
        }
    }

    @Test
    void aRootReplacedByALinkSinceValidationIsRefusedAsChanged() throws Exception {
        ValidatedDirectory validated = ValidatedDirectory.of(source);
        Files.move(source, tmp.resolve("moved-away"));
        Files.createSymbolicLink(source, elsewhere);

        assertCheckpointError(() -> SourceTree.open(List.of(validated)), CheckpointException.Code.CHANGED, "the source changed"
                + " during the import: " + source + " is not the directory the import read");
    }

    @Test
    void aRootReplacedByAnotherDirectorySinceValidationIsRefusedAsChanged() throws Exception {
        ValidatedDirectory validated = ValidatedDirectory.of(source);
        Files.move(source, tmp.resolve("moved-away"));
        Files.move(elsewhere, source);

        assertCheckpointError(() -> SourceTree.open(List.of(validated)), CheckpointException.Code.CHANGED, source
                + " is not the directory the import read");
    }

    @Test
    void aDirectoryOnTheWayReplacedByALinkIsRefusedNamingTheLink() throws Exception {
        try (SourceTree tree = SourceTree.open(List.of(ValidatedDirectory.of(source)))) {
            Files.move(source.resolve("original"), tmp.resolve("moved-away"));
            Files.createSymbolicLink(source.resolve("original"), elsewhere.resolve("original"));

            assertCheckpointError(() -> tree.open("original/params.json", params), CheckpointException.Code.CHANGED,
                    "original/params.json changed during the import: " + source.resolve("original") + " is a link now");
            assertCheckpointError(() -> tree.attributes("original/params.json", params), CheckpointException.Code.CHANGED,
                    source.resolve("original") + " is a link now");
        }
    }

    @Test
    void aFileGoneSinceValidationIsNoSuchFileNamedByItsWholePath() throws Exception {
        try (SourceTree tree = SourceTree.open(List.of(ValidatedDirectory.of(source)))) {
            Files.delete(params);

            assertThatThrownBy(() -> tree.open("original/params.json", params)).isInstanceOf(NoSuchFileException.class)
                    .hasMessage(params.toString());
        }
    }

    @Test
    void aFileReplacedAfterItsAttributesWereReadIsRefusedAsChanged() throws Exception {
        // The swap lands between the attributes read before the open and those read after, as a rename in between would.
        BasicFileAttributes before = Files.readAttributes(params, BasicFileAttributes.class);
        Path other = Files.writeString(tmp.resolve("other.json"), "{\"dim\": 32}");
        Files.move(other, params, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel channel = FileChannel.open(params)) {
            assertCheckpointError(() -> SourceTree.opened("original/params.json", before, channel,
                    () -> Files.readAttributes(params, BasicFileAttributes.class)), CheckpointException.Code.CHANGED,
                    "original/params.json changed during the import: it was replaced by another file while it was opened");
            assertThat(channel.isOpen()).as("closed with the refusal").isFalse();
        }
    }

    @Test
    void aStepThatIsNoLongerADirectoryIsNamedByItsWholePath() throws Exception {
        try (SourceTree tree = SourceTree.open(List.of(ValidatedDirectory.of(source)))) {
            Files.move(source.resolve("original"), tmp.resolve("moved-away"));
            Files.writeString(source.resolve("original"), "a file now");

            assertThatThrownBy(() -> tree.open("original/params.json", params)).isInstanceOf(FileSystemException.class)
                    .hasMessageContaining(source.resolve("original").toString());
        }
    }

    @Test
    void aLinkGivenAsTheRootIsNoValidatedDirectory() throws Exception {
        Path link = Files.createSymbolicLink(tmp.resolve("link"), source);

        assertThatThrownBy(() -> ValidatedDirectory.of(link)).hasMessageContaining("not a directory: " + link
                + " (a link put there while it was read)");
    }
}

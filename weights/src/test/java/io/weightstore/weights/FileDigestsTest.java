package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.weights.checks.TensorCrcCalculator;
import io.weightstore.weights.checks.TensorCrcTable;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDigestsTest {
    @TempDir
    Path tmp;

    @Test
    void oneWalkGivesTheWholeFilesSha256AndTheTableComputedOnItsOwn() throws Exception {
        CheckpointDirectory checkpoint = SyntheticCheckpoint.write(SynthSpec.forSize(6 << 20, DType.BF16, 2 << 20, 9),
                tmp.resolve("synth"), b -> {});
        for (CheckpointFile file : checkpoint.files()) {
            MemorySegment bytes = MemorySegment.ofArray(Files.readAllBytes(checkpoint.root().resolve(file.path())));
            FileDigests digests = FileDigests.of(bytes, file.header());
            assertThat(digests.sha256()).as(file.path()).isEqualTo(Sha256.of(bytes));
            assertThat(digests.tensorCrcs().map(FileDigestsTest::json)).as(file.path())
                    .isEqualTo(file.header().map(h -> json(TensorCrcTable.compute(h, bytes))));
        }
    }

    @Test
    void readingTheFileAFewMibAtATimeGivesWhatWalkingItWholeGives() throws Exception {
        // Shards of 64 MiB hold tensors larger than the 4 MiB the walk reads at once.
        CheckpointDirectory checkpoint = SyntheticCheckpoint.write(SynthSpec.forSize(128 << 20, DType.F32, 64 << 20, 5),
                tmp.resolve("large"), b -> {});
        assertThat(checkpoint.files().stream().flatMap(f -> f.header().stream()).flatMap(h -> h.tensors().stream())
                .mapToLong(TensorInfo::byteSize).max().orElseThrow()).isGreaterThan(TensorCrcCalculator.BYTES_PER_BATCH);
        for (CheckpointFile file : checkpoint.files()) {
            Path path = checkpoint.root().resolve(file.path());
            MemorySegment bytes = MemorySegment.ofArray(Files.readAllBytes(path));
            FileDigests whole = FileDigests.of(bytes, file.header());
            try (FileChannel channel = FileChannel.open(path)) {
                FileDigests read = FileDigests.of(channel, channel.size(), file.header());
                assertThat(read.sha256()).as(file.path()).isEqualTo(whole.sha256()).isEqualTo(Sha256.of(bytes));
                assertThat(read.tensorCrcs().map(FileDigestsTest::json)).as(file.path())
                        .isEqualTo(whole.tensorCrcs().map(FileDigestsTest::json));
            }
        }
    }

    @Test
    void aFileShorterThanItsHeaderSaysIsReportedAsChanged() throws Exception {
        CheckpointDirectory checkpoint = SyntheticCheckpoint.write(SynthSpec.forSize(6 << 20, DType.BF16, 2 << 20, 9),
                tmp.resolve("short"), b -> {});
        CheckpointFile file = checkpoint.files().stream().filter(f -> f.header().isPresent()).findFirst().orElseThrow();
        try (FileChannel channel = FileChannel.open(checkpoint.root().resolve(file.path()), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long size = channel.size();
            channel.truncate(size - 1);
            assertThatThrownBy(() -> FileDigests.of(channel, size, file.header())).isInstanceOf(CheckpointException.class)
                    .hasMessageContaining("the file ends at byte " + (size - 1))
                    .satisfies(e -> assertThat(((CheckpointException) e).code()).isEqualTo(CheckpointException.Code.CHANGED));
        }
    }

    @Test
    void tableKeepsTheHeadersOrderWhenTheDataIsInAnother() throws Exception {
        // "late" is listed first but its bytes come second: the walk goes by offset, the table by the header.
        // (The parser lists tensors in data order; a header built in code need not.)
        String json = "{\"late\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[16,32]},"
                + "\"early\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";
        byte[] header = json.getBytes(StandardCharsets.UTF_8);
        ByteBuffer file = ByteBuffer.allocate(8 + header.length + 32).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(header.length).put(header);
        for (int i = 0; i < 8; i++) {
            file.putFloat(i * 1.5f);
        }
        MemorySegment bytes = MemorySegment.ofArray(file.array());
        SafetensorsHeader inDataOrder = SafetensorsHeaderParser.parse(header, file.capacity());
        SafetensorsHeader parsed = new SafetensorsHeader(inDataOrder.headerLength(), Map.of(), inDataOrder.tensors().reversed());

        FileDigests digests = FileDigests.of(bytes, Optional.of(parsed));

        assertThat(digests.sha256()).isEqualTo(Sha256.of(bytes));
        assertThat(json(digests.tensorCrcs().orElseThrow())).isEqualTo(json(TensorCrcTable.compute(parsed, bytes)))
                .startsWith("{\"schemaVersion\":1,\"headerCrc32c\":\"").contains("\"tensors\":[{\"name\":\"late\"");
    }

    private static String json(TensorCrcTable table) {
        return new String(table.toJson(), StandardCharsets.UTF_8);
    }

    @Test
    void fileWithoutHeaderHasOnlyItsSha256() {
        MemorySegment bytes = MemorySegment.ofArray("{\"bos_token_id\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(FileDigests.of(bytes, Optional.empty())).isEqualTo(new FileDigests(Sha256.of(bytes), Optional.empty()));
    }
}

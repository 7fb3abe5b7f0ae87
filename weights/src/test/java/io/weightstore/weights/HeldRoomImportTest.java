package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.Room;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.security.Role;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Room a writer's own delete freed is held back from others while its write grants live, but not
 * from that writer: it re-imports at once, and another writer is told why the room is short and when
 * it returns.
 */
class HeldRoomImportTest {
    @TempDir
    Path tmp;

    @Test
    void aWriterReimportsIntoRoomItsDeleteFreedAndAnotherIsToldWhenItReturns() throws Exception {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.forSize(TestCluster.NODE_CAPACITY * 5 / 8, DType.F32, Long.MAX_VALUE, 3), source, b -> {});
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 1)) {
            StoreClient importer = cluster.client(as(cluster, "importer"));
            ImportRequest request = new ImportRequest(CheckpointId.of("big"), "org/big", "main", source, 1, false, 2);
            new CheckpointImporter(new Catalog(importer)).run(request, Progress.NONE);
            new CheckpointRemover(new Catalog(importer)).run(CheckpointId.of("big"), false);

            Room own = importer.room();
            assertThat(own.held().forCaller()).as("the deleted files' room, held for the grants that wrote it").isPositive();
            assertThat(own.available()).isGreaterThan(own.capacity() - own.used());
            assertThat(new CheckpointImporter(new Catalog(importer)).run(request, Progress.NONE).manifest().status())
                    .isEqualTo(CheckpointStatus.READY);
            new CheckpointRemover(new Catalog(importer)).run(CheckpointId.of("big"), false);

            StoreClient other = cluster.client(as(cluster, "other"));
            assertThat(other.room().held().forOthers()).isEqualTo(own.held().forCaller());
            assertThatThrownBy(() -> new CheckpointImporter(new Catalog(other)).run(request, Progress.NONE))
                    .isInstanceOfSatisfying(CheckpointException.class,
                            e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NO_SPACE))
                    .hasMessageMatching("(?s).*more was freed recently and is held back until the write grants that reach it expire,"
                            + " by \\d{4}-\\d\\d-\\d\\dT.*");
        }
    }

    private static ClientOptions as(TestCluster cluster, String writer) throws Exception {
        return ClientOptions.defaults().withSameHostPath(false).withAuthentication(cluster.authentication(Role.WRITER, writer));
    }
}

package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.MappedObject;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Objects seen in place in the pools of nodes on this host: slices of three pools stitched into one
 * read-only segment. Here the pools are on the file system of the test's temporary directory, whose
 * blocks the check reads from the pool files; {@link MappedObjectInHugePagesTest} checks them
 * through the mapping.
 */
class MappedObjectTest {
    private static final long SIZE = 5 * TestCluster.SLICE + 12_345;

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private Arena arena;
    private MemorySegment source;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster(clusterDir(tmp), 3);
        arena = Arena.ofShared();
        source = Bytes.random(arena, SIZE, 17);
        try (StoreClient writer = cluster.client()) {
            writer.put("w", source, PutOptions.defaults().withSliceSize(TestCluster.SLICE));
        }
    }

    /** Where the cluster keeps its master's records and its nodes' pools. */
    protected Path clusterDir(Path tmp) throws Exception {
        return tmp.resolve("cluster");
    }

    @AfterEach
    void stop() throws Exception {
        arena.close();
        cluster.close();
    }

    @Test
    void objectOverThreePoolsIsOneReadOnlySegmentWithTheStoredBytes() throws Exception {
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("w");
                Arena views = Arena.ofShared()) {
            assertThat(object.object().slices().stream().map(s -> s.replicas().getFirst().nodeId()).distinct()).hasSize(3);
            MappedObject mapped = object.mapReadOnly(views).orElseThrow();
            mapped.check();
            MemorySegment view = mapped.bytes();
            assertThat(view.byteSize()).isEqualTo(SIZE);
            assertThat(view.isReadOnly()).isTrue();
            assertThat(view.mismatch(source)).isEqualTo(-1);
            assertThatThrownBy(() -> view.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        }
    }

    @Test
    void closingTheArenaUnmapsAndLaterReadsFailLoudly() throws Exception {
        MemorySegment view;
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("w")) {
            Arena views = Arena.ofShared();
            view = object.mapReadOnly(views).orElseThrow().bytes();
            assertThat(view.get(ValueLayout.JAVA_BYTE, SIZE - 1)).isEqualTo(source.get(ValueLayout.JAVA_BYTE, SIZE - 1));
            views.close();
        }
        assertThatThrownBy(() -> view.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void theMappingOutlivesTheClientThatMadeIt() throws Exception {
        try (Arena views = Arena.ofShared()) {
            MemorySegment view;
            try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("w")) {
                view = object.mapReadOnly(views).orElseThrow().bytes();
            }
            assertThat(view.mismatch(source)).isEqualTo(-1);
        }
    }

    @Test
    void rotInAPoolIsFoundByTheCheckAndNamesTheBlock() throws Exception {
        cluster.flipByte("w", 3, 100_000);
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("w");
                Arena views = Arena.ofShared()) {
            MappedObject mapped = object.mapReadOnly(views).orElseThrow();
            assertThat(mapped.bytes().mismatch(source)).isEqualTo(3 * TestCluster.SLICE + 100_000);
            assertThatThrownBy(mapped::check).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.CORRUPT))
                    .hasMessageContaining("slice 3 block 1");
        }
    }

    /** Replaces "w" with "two", of two copies a slice: the only object, so that any node may be forgotten. */
    private void putTwoCopiesOnly() throws Exception {
        try (StoreClient writer = cluster.client()) {
            writer.remove("w", true);
            writer.put("two", source, PutOptions.defaults().withSliceSize(TestCluster.SLICE).withReplicas(2));
        }
    }

    /**
     * Rots byte 100,000 of "two"'s first copy, which a view or files in place hold (every node is on this host: each
     * slice's first copy is taken), then loses and forgets its node: {@code object} learns where the object is now.
     */
    private void rotTheFirstCopyThenRelocateIt(ObjectReader object) throws Exception {
        String first = object.object().slices().getFirst().replicas().getFirst().nodeId();
        cluster.flipByte("two", 0, 0, 100_000);
        cluster.stopNode(cluster.indexOf(first));
        cluster.masterCore().forgetNode(first, true);
        object.repair(List.of());
        assertThat(object.object().slices().getFirst().nodeIds()).doesNotContain(first);
    }

    @Test
    void theCheckReadsTheCopiesTheViewMapsEvenAfterTheObjectWasRelocatedToOthers() throws Exception {
        putTwoCopiesOnly();
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("two");
                Arena views = Arena.ofShared()) {
            MappedObject mapped = object.mapReadOnly(views).orElseThrow();
            rotTheFirstCopyThenRelocateIt(object);
            assertThat(mapped.bytes().mismatch(source)).as("the view still shows the rotten copy").isEqualTo(100_000);
            assertThatThrownBy(mapped::check).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.CORRUPT))
                    .hasMessageContaining("slice 0 block");
        }
    }

    @Test
    void filesOpenInPlaceAreCheckedAndRotInThemNamesTheBlock() throws Exception {
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("w");
                InPlaceFiles files = object.openInPlace().orElseThrow()) {
            assertThat(files.size()).isEqualTo(SIZE);
            object.checkInPlace(files);
            cluster.flipByte("w", 4, 70_000);
            assertThatThrownBy(() -> object.checkInPlace(files)).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.CORRUPT))
                    .hasMessageContaining("slice 4 block 1");
        }
    }

    @Test
    void theCheckOfOpenFilesReadsThemEvenAfterTheObjectWasRelocatedToOthers() throws Exception {
        putTwoCopiesOnly();
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(true)); ObjectReader object = store.open("two");
                InPlaceFiles files = object.openInPlace().orElseThrow()) {
            rotTheFirstCopyThenRelocateIt(object);
            InPlaceFiles.FileRange flipped = files.ranges(100_000, 1).getFirst();
            ByteBuffer held = ByteBuffer.allocate(1);
            flipped.file().read(held, flipped.position());
            assertThat(held.get(0)).as("the files still hold the rotten copy").isNotEqualTo(source.get(ValueLayout.JAVA_BYTE, 100_000));
            assertThatThrownBy(() -> object.checkInPlace(files)).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.CORRUPT))
                    .hasMessageContaining("slice 0 block");
        }
    }

    @Test
    void aClientThatCannotSeeThePoolsGetsNothingAndReadsInstead() throws Exception {
        try (StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(false)); ObjectReader object = store.open("w");
                Arena views = Arena.ofShared()) {
            assertThat(object.mapReadOnly(views)).isEqualTo(Optional.empty());
        }
    }
}

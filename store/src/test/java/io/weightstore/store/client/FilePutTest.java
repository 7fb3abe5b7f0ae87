package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.InProcessStore;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.master.MasterConfig;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file is put a few MiB at a time, read into a buffer, never mapped: every piece lands in its place with its blocks' CRCs. */
class FilePutTest {
    private static final long SLICE = 16 << 20;

    @TempDir
    Path tmp;

    @Test
    void slicesOfSeveralPiecesStoreEveryByteWithEachBlocksCrcInItsPlace() throws Exception {
        byte[] bytes = new byte[(int) (2 * SLICE + (3 << 19) + 123)];
        new Random(17).nextBytes(bytes);
        Path file = Files.write(tmp.resolve("source.bin"), bytes);
        try (StoreClient store = InProcessStore.open(tmp.resolve("store"), 256 << 20, MasterConfig.defaults().withSliceSize(SLICE),
                UnaryOperator.identity())) {
            ObjectMeta object = store.put("file", file, PutOptions.defaults(), Progress.NONE);

            assertThat(store.readAll("file")).isEqualTo(bytes);
            assertThat(object.slices()).hasSize(3);
            for (SliceMeta slice : object.slices()) {
                MemorySegment data = MemorySegment.ofArray(bytes).asSlice(slice.offset(), slice.length());
                assertThat(slice.crcs().toArray()).as("slice at %d", slice.offset())
                        .containsExactly(Checksums.blockCrcs(data, object.checksumBlockSize()));
            }
        }
    }
}

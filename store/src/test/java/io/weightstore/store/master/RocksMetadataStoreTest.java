package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata contract on RocksDB, as the single master and the embedded store keep it. */
class RocksMetadataStoreTest extends MetadataStoreContract {
    @TempDir
    Path dir;

    @Override
    protected MetadataStore open() throws Exception {
        return RocksMetadataStore.open(dir);
    }

    @Override
    protected MetadataStore reopen() throws Exception {
        return RocksMetadataStore.open(dir);
    }

    @Test
    void opensOneAfterAnotherKeepABoundedNumberOfRocksLogs() throws Exception {
        Path another = dir.resolve("another");
        for (int i = 0; i < 3 * RocksMetadataStore.KEPT_INFO_LOGS; i++) {
            RocksMetadataStore.open(another).close();
        }

        assertThat(rocksLogs(another)).hasSizeBetween(1, RocksMetadataStore.KEPT_INFO_LOGS);
    }

    /** RocksDB used after close reads freed memory: a master that outlives its metadata by a call must fail it, not the process. */
    @Test
    void aStoreUsedAfterCloseFailsTheCallAndClosingAgainDoesNothing() throws Exception {
        MetadataStore store = RocksMetadataStore.open(dir.resolve("closed"));
        store.close();
        store.close();

        assertThatThrownBy(() -> store.apply(new MetadataBatch().deleteObject("k"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> store.object("k")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(store::leases).isInstanceOf(IllegalStateException.class);
    }

    private static String[] rocksLogs(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(name -> name.startsWith("LOG")).toArray(String[]::new);
        }
    }
}

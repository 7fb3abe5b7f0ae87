package io.weightstore.store.master;

import java.nio.file.Path;
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
}

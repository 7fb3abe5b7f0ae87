package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master on a clock the test moves, over a RocksDB store in the test's own directory: opened before each test (before a
 * subclass's own {@code @BeforeEach} registers its nodes) and closed after it. A test that restarts the master closes it and
 * assigns {@link #open()}'s again.
 */
abstract class ClockedMasterFixture {
    @TempDir
    Path dir;

    final AtomicLong now = new AtomicLong(1_000_000);
    MasterCore master;

    /** A master over the same store and clock, as a restart opens it. */
    MasterCore open() throws StoreException {
        return ClockedMasters.open(dir, now);
    }

    @BeforeEach
    void openMaster() throws StoreException {
        master = open();
    }

    @AfterEach
    void closeMaster() {
        master.close();
    }
}

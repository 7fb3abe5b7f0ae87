package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.master.RocksNativeLibrary;
import io.weightstore.weights.WeightstoreHome;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where RocksDB's native library is kept between runs, and a process that may not keep it there. */
class NativeLibraryDirectoryTest {
    @TempDir
    Path tmp;

    /**
     * A sandboxed service may write only its state directories: a home elsewhere failed every master and embedded store at
     * start, with a stack trace. It now costs the process the kept copy and no more.
     */
    @Test
    void aProcessThatCannotKeepTheLibraryWhereItIsToldStillOpensTheEmbeddedStore() throws Exception {
        // Under a file, where no directory can be made, root or not.
        String nowhere = "/proc/version/native";
        CliProcess list = CliProcess.start(tmp.resolve("list.log"), Map.of(WeightstoreHome.ENV, tmp.resolve("home").toString(),
                "JDK_JAVA_OPTIONS", "-D" + RocksNativeLibrary.DIRECTORY_PROPERTY + "=" + nowhere), "model", "list", "--json");

        assertThat(list.await()).as(list.output()).isZero();
        assertThat(list.output()).contains("cannot keep RocksDB's native library in " + nowhere).doesNotContain("Exception in thread");
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** A wrong or unreachable --store fails at once with one line naming what is wrong: no gRPC stack trace, no wait for a deadline. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class StoreAddressErrorsTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    /** Runs the verb against {@code store} and checks it failed quickly, with one line on stderr. */
    private static CliRun quickly(String store, String... verb) {
        String[] args = new String[verb.length + 2];
        System.arraycopy(verb, 0, args, 0, verb.length);
        args[verb.length] = "--store";
        args[verb.length + 1] = store;
        long start = System.nanoTime();
        CliRun run = CliRun.of(args);
        assertThat((System.nanoTime() - start) / 1e9).as("seconds to fail").isLessThan(5);
        assertThat(run.err().strip().lines()).as(run.err()).hasSize(1);
        return run;
    }

    @Test
    void aPortOutOfRangeIsAUsageError() {
        CliRun run = quickly("127.0.0.1:99999", "store", "status");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("master address '127.0.0.1:99999': port 99999 is outside 1..65535");
    }

    @Test
    void anAddressWithoutAPortIsAUsageError() {
        for (String address : new String[] {"nonsense", "localhost"}) {
            CliRun run = quickly(address, "model", "list");
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("master address '" + address + "': expected HOST:PORT");
        }
    }

    @Test
    void aMasterNotListeningIsConnectionRefusedAtItsAddress() {
        CliRun run = quickly("127.0.0.1:1", "store", "status");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("status at master 127.0.0.1:1: master unavailable: connection refused")
                .doesNotContain("io exception");
    }

    @Test
    void anUnknownHostIsNamedWithoutAStackTrace() throws Exception {
        CliProcess run = CliProcess.start(tmp.resolve("unknown-host.log"), "store", "status", "--store", "no-such-host.invalid:7070");
        assertThat(run.await()).isEqualTo(1);
        assertThat(run.output()).contains("master no-such-host.invalid:7070: master unavailable: cannot resolve its host name")
                .doesNotContain("\tat ", "Exception:");
    }
}

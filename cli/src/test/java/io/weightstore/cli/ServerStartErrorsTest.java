package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.weights.StoreLocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code master}, {@code node} and {@code serve} refuse what they cannot do before they leave
 * anything behind, and name the port or path in their one-line error.
 */
class ServerStartErrorsTest {
    @TempDir
    Path tmp;

    private MasterServer master;
    private String address;

    @BeforeEach
    void startMaster() throws IOException {
        master = MasterServer.start(tmp.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure());
        address = "127.0.0.1:" + master.port();
    }

    @AfterEach
    void stopMaster() {
        master.close();
    }

    @Test
    void masterRefusesABadPortBeforeItTouchesTheDataDirectory() {
        Path data = tmp.resolve("never");
        CliRun run = CliRun.of("master", "--insecure", "--port", "70000", "--data-dir", data.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--port must be in 0..65535, found 70000");
        assertThat(data).doesNotExist();
    }

    @Test
    void nodeRefusesABadPortBeforeItCreatesAPool() {
        Path pool = tmp.resolve("bad-port.pool");
        CliRun run = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", "64M", "--port", "70000");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--port must be in 0..65535, found 70000");
        assertThat(pool).doesNotExist();
    }

    /** A name that does not resolve yet (DNS at boot) is a failure to retry, not a usage error, after which systemd gives up. */
    @Test
    void nodeOnAHostNameThatDoesNotResolveFailsWithoutCallingItAUsageError() {
        Path pool = tmp.resolve("unresolved.pool");
        CliRun run = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", "64M", "--port", "0",
                "--bind", "no-such-host.invalid");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.FAILURE);
        assertThat(run.err()).contains("cannot listen on no-such-host.invalid:0: the name no-such-host.invalid does not resolve");
        assertThat(pool).doesNotExist();
    }

    @Test
    void nodeRefusesATcpCongestionControlItCannotSetBeforeItCreatesAPool() {
        Path pool = tmp.resolve("bad-congestion.pool");
        CliRun lacking = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", "64M", "--port", "0",
                "--tcp-congestion", "no_such_cc");
        assertThat(lacking.exitCode()).isEqualTo(2);
        assertThat(lacking.err()).contains("the kernel refused TCP congestion control 'no_such_cc': it has no such algorithm (available: ");
        CliRun malformed = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", "64M", "--port",
                "0", "--tcp-congestion", "BBR");
        assertThat(malformed.exitCode()).isEqualTo(2);
        assertThat(malformed.err()).contains("--tcp-congestion").contains("algorithm=BBR");
        assertThat(pool).doesNotExist();
    }

    @Test
    void nodeOnAPortInUseNamesItAndLeavesNoPoolBehind() throws IOException {
        Path pool = tmp.resolve("taken.pool");
        Path existing = tmp.resolve("existing.pool");
        StorageNode.start(address, NodeOptions.loopback(existing, 64 << 20)).close();
        long size = Files.size(existing);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            String port = String.valueOf(taken.getLocalPort());
            for (Path target : new Path[] {pool, existing}) {
                CliRun run = CliRun.of("node", "--insecure", "--master", address, "--pool", target.toString(), "--capacity", "64M", "--bind",
                        "127.0.0.1", "--port", port);
                assertThat(run.exitCode()).isEqualTo(1);
                assertThat(run.err()).contains("cannot listen on 127.0.0.1:" + port);
            }
        }
        assertThat(pool).doesNotExist();
        assertThat(tmp.resolve("taken.pool.creating")).doesNotExist();
        assertThat(existing).as("a pool it did not create is left as it was").hasSize(size);
    }

    @Test
    void nodeRefusesANewPoolLargerThanTheFreeSpaceOfItsFileSystem() throws IOException {
        Path pool = tmp.resolve("huge.pool");
        CliRun run = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", "100T", "--port", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("pool " + pool + ": capacity 102400.0 GiB", "free on its file system", "give it at most");
        assertThat(pool).doesNotExist();
        assertThat(tmp.resolve("huge.pool.creating")).doesNotExist();
    }

    @Test
    void nodeRefusesAPoolOnTmpfsLargerThanItsFreeSpace() throws IOException {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm here");
        FileStore store = Files.getFileStore(shm);
        long tooMuch = (store.getUsableSpace() >> 30) + 2;
        Path pool = shm.resolve("weightstore-test-" + ProcessHandle.current().pid() + ".pool");
        CliRun run = CliRun.of("node", "--insecure", "--master", address, "--pool", pool.toString(), "--capacity", tooMuch + "G", "--port", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("is more than the", "free on its file system " + store);
        assertThat(pool).doesNotExist();
    }

    @Test
    void nodeRegistersWithTheMasterNamedByTheEnvironment() throws Exception {
        Path pool = tmp.resolve("env.pool");
        CliProcess node = CliProcess.start(tmp.resolve("node.log"), Map.of(StoreLocator.MASTER_ENV, address), "node", "--insecure", "--pool",
                pool.toString(), "--capacity", "64M", "--bind", "127.0.0.1", "--advertise", "127.0.0.1", "--port", "0");
        try {
            long deadline = System.currentTimeMillis() + 60_000;
            while (!node.output().contains(" serving ") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertThat(node.output()).contains("master " + address);
            assertThat(master.core().status().nodes()).as(node.output()).singleElement()
                    .satisfies(n -> assertThat(n.info().poolPath()).isEqualTo(pool.toAbsolutePath().toString()));
        } finally {
            node.stop();
        }
        CliRun none = CliRun.of("node", "--insecure", "--pool", tmp.resolve("none.pool").toString(), "--capacity", "64M");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("no master to register with: give --master HOST:PORT, or set $WEIGHTSTORE_MASTER");
    }

    @Test
    void serveOnAPortInUseNamesThePort() throws IOException {
        // A directory that names a model: serve checks --model before it listens, and reads the model's files only after.
        Path model = Files.createDirectories(tmp.resolve("model"));
        Files.writeString(model.resolve("config.json"), "{}");
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            CliRun run = CliRun.of("serve", "--model", model.toString(), "--port", String.valueOf(taken.getLocalPort()));
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err().strip()).isEqualTo("weightstore: error: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + ": Address already in use");
        }
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.weightstore.store.Metrics;
import io.weightstore.store.TestCluster;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.security.Role;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class StoreCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    private Path file;

    @BeforeEach
    void writeData() throws IOException {
        byte[] bytes = new byte[3 << 20];
        new Random(1).nextBytes(bytes);
        file = Files.write(tmp.resolve("data.bin"), bytes);
    }

    private void roundTrip(String... store) throws IOException {
        CliRun put = CliRun.of(concat(new String[] {"store", "put", "models/a", file.toString(), "--slice-size", "1M"}, store));
        assertThat(put.exitCode()).as(put.err()).isZero();
        assertThat(put.out()).contains("stored models/a", "3 slices");

        CliRun ls = CliRun.of(concat(new String[] {"store", "ls", "models/"}, store));
        assertThat(ls.out()).contains("KEY", "models/a", "3.0 MiB");
        JsonNode listed = JSON.readTree(CliRun.of(concat(new String[] {"store", "ls", "--json"}, store)).out());
        assertThat(listed.get(0).get("key").asText()).isEqualTo("models/a");

        Path out = tmp.resolve("out.bin");
        CliRun get = CliRun.of(concat(new String[] {"store", "get", "models/a", out.toString()}, store));
        assertThat(get.exitCode()).as(get.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(file));

        CliRun status = CliRun.of(concat(new String[] {"store", "status", "--json"}, store));
        JsonNode view = JSON.readTree(status.out());
        assertThat(view.get("objects").asLong()).isEqualTo(1);
        assertThat(view.get("nodes")).allSatisfy(n -> assertThat(n.get("up").asBoolean()).isTrue());

        assertThat(CliRun.of(concat(new String[] {"store", "put", "models/a", file.toString()}, store)).exitCode()).isEqualTo(1);
        assertThat(CliRun.of(concat(new String[] {"store", "rm", "models/a"}, store)).exitCode()).isZero();
        CliRun missing = CliRun.of(concat(new String[] {"store", "get", "models/a", out.toString()}, store));
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.err()).contains("no object models/a");
        CliRun badKey = CliRun.of(concat(new String[] {"store", "put", "bad\u0001key", file.toString()}, store));
        assertThat(badKey.exitCode()).isEqualTo(2);
        assertThat(badKey.err()).contains("control character");
    }

    @Test
    void embeddedStoreRoundTripsAFile() throws IOException {
        roundTrip();
        assertThat(Files.exists(tmp.resolve("home/store/pool"))).isTrue();
    }

    @Test
    void clusterStoreRoundTripsAFile() throws Exception {
        try (MasterServer master = MasterServer.start(tmp.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure());
                StorageNode n1 = node(master, 1);
                StorageNode n2 = node(master, 2)) {
            roundTrip("--store", "127.0.0.1:" + master.port());
            CliRun status = CliRun.of("store", "status", "--store", "127.0.0.1:" + master.port());
            assertThat(status.out()).contains(n1.nodeId(), n2.nodeId(), "up");
        }
    }

    @Test
    void storeStatusAsksTheMasterOnceAndStillShowsTheRoomHeldBack() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 1)) {
            String[] writer = {"--store", cluster.masterAddress(), "--credentials", cluster.credentials(Role.WRITER, "writer").toString()};
            // Removed at once, its room is held back while the put's write grant lives, for the writer to put into.
            assertThat(CliRun.of(concat(new String[] {"store", "put", "models/a", file.toString()}, writer)).exitCode()).isZero();
            assertThat(CliRun.of(concat(new String[] {"store", "rm", "models/a"}, writer)).exitCode()).isZero();
            PrometheusRegistry calls = cluster.masterMetrics().registry();
            double statusCalls = Metrics.sum(calls, "weightstore_master_calls", "method", "Status");
            double roomCalls = Metrics.sum(calls, "weightstore_master_calls", "method", "Room");

            CliRun status = CliRun.of(concat(new String[] {"store", "status"}, writer));
            assertThat(status.exitCode()).as(status.err()).isZero();
            assertThat(status.out()).containsPattern("held back: \\S+ \\S+ of what is used belongs to no object")
                    .contains("of it is yours to put into at once");
            assertThat(Metrics.sum(calls, "weightstore_master_calls", "method", "Status")).isEqualTo(statusCalls + 1);
            assertThat(Metrics.sum(calls, "weightstore_master_calls", "method", "Room")).isEqualTo(roomCalls);
        }
    }

    private StorageNode node(MasterServer master, int i) throws IOException {
        return StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("pool" + i), 64 << 20));
    }

    @Test
    void storeIsChosenFromTheEnvironmentOrTheConfigFileWhenNoFlagIsGiven() throws Exception {
        try (MasterServer master = MasterServer.start(tmp.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure());
                StorageNode node = node(master, 1)) {
            String address = "127.0.0.1:" + master.port();
            Path config = Files.writeString(tmp.resolve("weightstore.yaml"), "client:\n  store: " + address + "\n");
            // A file that names a master nobody listens on: the environment wins over it.
            Path wrong = Files.writeString(tmp.resolve("wrong.yaml"), "client:\n  store: [127.0.0.1:1]\n");
            Map<String, Map<String, String>> environments = Map.of(
                    "WEIGHTSTORE_MASTER", Map.of(StoreLocator.MASTER_ENV, address, WeightstoreHome.ENV, tmp.resolve("h1").toString()),
                    "WEIGHTSTORE_CONFIG", Map.of(StoreLocator.CONFIG_ENV, config.toString(), WeightstoreHome.ENV, tmp.resolve("h2").toString()),
                    "both", Map.of(StoreLocator.CONFIG_ENV, wrong.toString(), StoreLocator.MASTER_ENV, address, WeightstoreHome.ENV,
                            tmp.resolve("h4").toString()));
            for (Map.Entry<String, Map<String, String>> environment : environments.entrySet()) {
                Path log = tmp.resolve(environment.getKey() + ".log");
                CliProcess run = CliProcess.start(log, environment.getValue(), "store", "status", "--json");
                assertThat(run.await()).as(run.output()).isZero();
                assertThat(run.output()).as(environment.getKey()).contains("cluster at " + address, node.nodeId());
            }
            CliRun flagged = CliRun.of("store", "status", "--config", config.toString());
            assertThat(flagged.exitCode()).as(flagged.err()).isZero();
            assertThat(flagged.out()).contains(node.nodeId());
            CliProcess embedded = CliProcess.start(tmp.resolve("embedded.log"), Map.of(WeightstoreHome.ENV, tmp.resolve("h3").toString()),
                    "store", "status", "--json");
            assertThat(embedded.await()).isZero();
            assertThat(embedded.output()).contains("embedded store " + tmp.resolve("h3/store"));
        }
    }

    @Test
    void anOldPropertiesConfigFileIsRefusedWithItsYaml() throws Exception {
        Path old = Files.writeString(tmp.resolve("weightstore.properties"), "master=127.0.0.1:7070\n");
        CliProcess run = CliProcess.start(tmp.resolve("old.log"), Map.of(StoreLocator.CONFIG_ENV, old.toString()), "store", "status");
        assertThat(run.await()).isEqualTo(2);
        assertThat(run.output()).contains("Java properties file", "client:\n  store: 127.0.0.1:7070");
    }

    @Test
    void aDirectoryToPutOrAnOutputWithNoDirectoryIsAUsageErrorNamingThePathGiven() throws IOException {
        CliRun put = CliRun.of("store", "put", "k", tmp.toString(), "--store", "127.0.0.1:1");
        assertThat(put.exitCode()).isEqualTo(2);
        assertThat(put.err()).contains("FILE " + tmp + " is a directory");
        CliRun missing = CliRun.of("store", "put", "k", tmp.resolve("no-such-file").toString(), "--store", "127.0.0.1:1");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("FILE " + tmp.resolve("no-such-file") + " does not exist");
        Path nowhere = tmp.resolve("no-such-dir").resolve("out");
        CliRun get = CliRun.of("store", "get", "k", nowhere.toString(), "--store", "127.0.0.1:1");
        assertThat(get.exitCode()).isEqualTo(2);
        assertThat(get.err()).contains("OUT " + nowhere + ": its directory " + nowhere.getParent() + " does not exist")
                .doesNotContain(".partial");
        CliRun intoADirectory = CliRun.of("store", "get", "models/k", tmp.toString(), "--store", "127.0.0.1:1");
        assertThat(intoADirectory.exitCode()).isEqualTo(2);
        assertThat(intoADirectory.err()).contains("OUT " + tmp + " is a directory; name the file to write, such as " + tmp.resolve("k"));
    }

    @Test
    void unreachableMasterIsAClearFailure() {
        CliRun run = CliRun.of("store", "status", "--store", "127.0.0.1:1");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("at master 127.0.0.1:1: master unavailable: connection refused");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

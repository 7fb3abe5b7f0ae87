package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.ReplyTamperer;
import io.weightstore.store.TestCluster;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.security.Role;
import io.weightstore.weights.testing.Tampering;
import io.weightstore.weights.WeightstoreHome;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 13's attacks through the command line, on real servers: a weight file overwritten with
 * {@code store put --replace --pin} by another writer, a proxy that zeroes column-shard replies, and
 * a replacement whose CRC32Cs were made to match. Each load that would have handed over tampered
 * tensors exits 1 naming what is wrong; verify and list show it.
 */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class IntegrityCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String O_PROJ = "model.layers.0.self_attn.o_proj.weight";

    @TempDir
    Path tmp;

    @AfterEach
    void restoreHome() {
        System.clearProperty(WeightstoreHome.PROPERTY);
    }

    private static CliRun run(int expectedExit, String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as("%s\nout: %s\nerr: %s", String.join(" ", args), run.out(), run.err()).isEqualTo(expectedExit);
        return run;
    }

    private Path synthesize() throws Exception {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 9), source, b -> {});
        return source;
    }

    @Test
    void aWeightFileOverwrittenByAnotherWriterFailsLoadVerifyAndShowsInList() throws Exception {
        Path source = synthesize();
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 2)) {
            String master = cluster.masterAddress();
            String importer = cluster.credentials(Role.WRITER, "importer").toString();
            String mallory = cluster.credentials(Role.WRITER, "mallory").toString();
            String engine = cluster.credentials(Role.READER, "engine").toString();
            run(0, "model", "import", "--store", master, "--credentials", importer, "--checkpoint-id", "tiny", "--model-id", "org/tiny",
                    "--source", source.toString());
            CliRun clean = run(0, "load", "weightstore://tiny", "--store", master, "--credentials", engine, "--tp-size", "2",
                    "--all-ranks", "--importer", "writer importer", "--json");
            for (JsonNode rank : JSON.readTree(clean.out())) {
                // On the nodes' host a rank's row shards are seen in place, its column shards read and checked.
                assertThat(rank.get("clientChecked").asInt()).isPositive();
                assertThat(rank.get("clientChecked").asInt() + rank.get("seenInPlace").asInt()).isEqualTo(rank.get("tensors").asInt());
                assertThat(rank.get("nodeChecked").asInt()).isZero();
            }

            Tampering.Place place = Tampering.place(source, O_PROJ);
            Path tampered = Tampering.xored(source.resolve(place.file()), place.offset(), Tampering.inverting(4096),
                    tmp.resolve("tampered.safetensors"));
            run(0, "store", "put", "weights/tiny/files/" + place.file(), tampered.toString(), "--replace", "--pin", "--store", master,
                    "--credentials", mallory);

            CliRun load = run(1, "load", "weightstore://tiny", "--digest", "--store", master, "--credentials", engine);
            assertThat(load.out()).as("no tensor digest printed").doesNotContain(O_PROJ);
            assertThat(load.err()).contains("stored " + place.file() + " of tiny was written by writer mallory, not by writer importer");

            CliRun verify = run(1, "model", "verify", "tiny", "--quick", "--store", master, "--credentials", engine);
            assertThat(verify.out()).containsPattern(place.file() + "\\s+CORRUPT\\s+.*written by writer mallory")
                    .contains("tiny: CORRUPT (1 of");

            CliRun list = run(0, "model", "list", "--store", master, "--credentials", engine);
            assertThat(list.out()).contains("writer importer", "CHANGED (1)", "tiny: stored " + place.file());
            assertThat(run(0, "store", "ls", "weights/tiny/files/", "--store", master, "--credentials", engine).out())
                    .containsPattern(place.file() + ".*writer mallory");
        }
    }

    @Test
    void columnShardsZeroedByAProxyFailTheLoad() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp.resolve("cluster"), 1, "1M", "64M");
                ReplyTamperer proxy = ReplyTamperer.zeroingStridedReplies(new InetSocketAddress("127.0.0.1", cluster.node(0).port()))) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "chaos", 1);
            run(0, "load", "weightstore://chaos", "--store", cluster.master(), "--tp-size", "2", "--all-ranks");

            proxy.advertiseAs(store.status().nodes().getFirst().info(), cluster.master());
            CliRun load = run(1, "load", "weightstore://chaos", "--store", cluster.master(), "--tp-size", "2", "--all-ranks", "--digest");
            assertThat(proxy.tamperedReplies()).isPositive();
            assertThat(load.err()).containsPattern("tensor model\\.layers\\.\\d+\\.(self_attn\\.o_proj|mlp\\.down_proj)\\.weight of "
                    + "model-\\d+-of-\\d+\\.safetensors, rank 0 of 2's columns: received bytes with CRC32C [0-9a-f]{8}, the import "
                    + "recorded [0-9a-f]{8}");
        }
    }

    @Test
    void loadVerifyReportsItsCostAndCatchesBytesWhoseCrcsWereMadeToMatch() throws Exception {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        Path source = synthesize();
        run(0, "model", "import", "--checkpoint-id", "tiny", "--model-id", "org/tiny", "--source", source.toString());
        CliRun verified = run(0, "load", "weightstore://tiny", "--verify");
        assertThat(verified.out()).containsPattern("verified \\d+ files \\(.*\\) against the manifest's SHA-256 in [0-9.]+ s");
        JsonNode report = JSON.readTree(run(0, "load", "weightstore://tiny", "--verify", "--json").out()).get(0);
        assertThat(report.get("verified").get("seconds").asDouble()).isPositive();

        Tampering.Place place = Tampering.place(source, O_PROJ);
        Path forged = Tampering.xored(source.resolve(place.file()), place.offset() + 40, Tampering.CRC_PRESERVING,
                tmp.resolve("forged.safetensors"));
        run(0, "store", "put", "weights/tiny/files/" + place.file(), forged.toString(), "--replace", "--pin");
        run(0, "load", "weightstore://tiny");
        CliRun caught = run(1, "load", "weightstore://tiny", "--verify");
        assertThat(caught.err()).contains(place.file() + " of tiny read back with sha256", "the manifest says");
        List<String> lines = new ArrayList<>(caught.out().lines().toList());
        assertThat(lines).as("nothing loaded").noneMatch(l -> l.startsWith("0/1"));
    }
}

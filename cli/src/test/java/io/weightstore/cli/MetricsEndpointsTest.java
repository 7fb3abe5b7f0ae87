package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and a node as processes with their operations ports: /health, /ready and /metrics
 * answer, and the counters move with a real put and read; a node that dies is reported down, once,
 * and up again, once, when it comes back.
 */
class MetricsEndpointsTest {
    private static final Pattern METRICS = Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics");
    private static final Pattern MASTER_PORT = Pattern.compile("master listening on [^:]+:(\\d+)");
    private static final Pattern NODE = Pattern.compile("node (\\S+) serving");

    @TempDir
    Path tmp;

    @Test
    void masterAndNodeReportWhatTheyServe() throws Exception {
        CliProcess master = CliProcess.start(tmp.resolve("master.log"), "master", "--insecure", "--port", "0",
                "--data-dir", tmp.resolve("meta").toString(), "--metrics-port", "0");
        CliProcess node = null;
        try {
            int masterPort = Integer.parseInt(await(master, MASTER_PORT));
            int masterMetrics = Integer.parseInt(await(master, METRICS));
            String[] nodeArgs = {"node", "--insecure", "--master", "127.0.0.1:" + masterPort, "--pool", tmp.resolve("pool").toString(),
                "--capacity", "64M", "--port", "0", "--advertise", "127.0.0.1", "--bind", "127.0.0.1", "--metrics-port", "0"};
            node = CliProcess.start(tmp.resolve("node.log"), nodeArgs);
            int nodeMetrics = Integer.parseInt(await(node, METRICS));
            String nodeId = await(node, NODE);

            assertThat(Scrape.get(masterMetrics, "/health").statusCode()).isEqualTo(200);
            assertThat(Scrape.get(masterMetrics, "/ready").body()).contains("\"status\":\"ready\"", "serving");
            assertThat(Scrape.get(nodeMetrics, "/health").statusCode()).isEqualTo(200);
            Awaits.until(Duration.ofSeconds(30), "the node to be registered",
                    () -> Scrape.get(nodeMetrics, "/ready").statusCode() == 200);
            assertThat(Scrape.get(nodeMetrics, "/ready").body()).contains("registered with 127.0.0.1:" + masterPort);
            assertThat(Scrape.get(nodeMetrics, "/v1/anything").statusCode()).isEqualTo(404);

            byte[] bytes = new byte[3 << 20];
            new Random(7).nextBytes(bytes);
            // Not the same-host path: the bytes must cross the node's data plane to be counted there.
            ClientOptions options = ClientOptions.defaults().withSameHostPath(false);
            try (StoreClient client = StoreClient.connect("127.0.0.1:" + masterPort, options); Arena arena = Arena.ofConfined()) {
                client.put("metrics/a", bytes, PutOptions.defaults().withSliceSize(1 << 20));
                try (ObjectReader reader = client.open("metrics/a")) {
                    MemorySegment dst = arena.allocate(bytes.length);
                    reader.read(new Range(0, bytes.length), dst);
                    assertThat(dst.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes);
                    Scrape leased = Scrape.of(masterMetrics);
                    assertThat(leased.value("weightstore_master_read_leases")).isEqualTo(1);
                }
                assertThat(client.metrics().registry().scrape().stream()
                        .anyMatch(m -> m.getMetadata().getName().equals("weightstore_client_read_bytes"))).isTrue();
            }

            Scrape n = Scrape.of(nodeMetrics);
            assertThat(n.value("weightstore_node_received_bytes_total")).isEqualTo(bytes.length);
            assertThat(n.sum("weightstore_node_sent_bytes_total")).isEqualTo(bytes.length);
            assertThat(n.value("weightstore_node_requests_total{op=\"write\"}")).isEqualTo(3);
            assertThat(n.sum("weightstore_node_request_duration_seconds_count")).isEqualTo(n.sum("weightstore_node_requests_total"));
            assertThat(n.value("weightstore_node_pool_capacity_bytes")).isEqualTo(64 << 20);
            assertThat(n.value("weightstore_node_registered")).isEqualTo(1);
            assertThat(n.value("weightstore_node_checksum_failures_total")).isZero();

            Scrape m = Scrape.of(masterMetrics);
            assertThat(m.value("weightstore_master_serving")).isEqualTo(1);
            assertThat(m.value("weightstore_master_calls_total{code=\"OK\",method=\"PutStart\"}")).isEqualTo(1);
            assertThat(m.value("weightstore_master_calls_total{code=\"OK\",method=\"Locate\"}")).isGreaterThanOrEqualTo(1);
            assertThat(m.value("weightstore_master_calls_total{code=\"NOT_FOUND\",method=\"Stat\"}")).isZero();
            assertThat(m.value("weightstore_master_call_duration_seconds_count{method=\"PutStart\"}")).isEqualTo(1);
            assertThat(m.value("weightstore_master_nodes{state=\"up\"}")).isEqualTo(1);
            assertThat(m.value("weightstore_master_node_used_bytes{node=\"" + nodeId + "\"}")).isEqualTo(bytes.length);
            assertThat(m.value("weightstore_master_node_capacity_bytes{node=\"" + nodeId + "\"}")).isEqualTo(64 << 20);
            assertThat(m.value("weightstore_master_objects")).isEqualTo(1);
            assertThat(m.value("weightstore_master_read_leases")).isZero();

            node.kill();
            Awaits.until(Duration.ofSeconds(30), "the master to see the node down",
                    () -> Scrape.of(masterMetrics).value("weightstore_master_nodes{state=\"down\"}") == 1);
            Awaits.until(Duration.ofSeconds(10), "the master to log the node down",
                    () -> master.output().contains("node " + nodeId + " at 127.0.0.1:"));
            Thread.sleep(2_000); // a few more liveness passes: the change must be reported once, not at each pass
            assertThat(Scrape.of(masterMetrics).value("weightstore_master_node_transitions_total{to=\"down\"}")).isEqualTo(1);
            assertThat(master.output().lines().filter(l -> l.contains("node " + nodeId) && l.contains("is down"))).hasSize(1);

            // Back on the same pool, the same node: up again, logged once.
            node = CliProcess.start(tmp.resolve("node-again.log"), nodeArgs);
            Awaits.until(Duration.ofSeconds(60), "the master to log the node up again",
                    () -> master.output().contains("node " + nodeId + " at 127.0.0.1:") && master.output().contains("is up again"));
            assertThat(Scrape.of(masterMetrics).value("weightstore_master_node_transitions_total{to=\"up\"}")).isEqualTo(1);
            assertThat(Scrape.of(masterMetrics).value("weightstore_master_nodes{state=\"up\"}")).isEqualTo(1);

            // The master gone: once it has not answered for a few heartbeats, the node is no longer ready.
            int nodeMetricsAgain = Integer.parseInt(await(node, METRICS));
            Awaits.until(Duration.ofSeconds(30), "the node to be ready again",
                    () -> Scrape.get(nodeMetricsAgain, "/ready").statusCode() == 200);
            master.stop();
            Awaits.until(Duration.ofSeconds(30), "the node to stop being ready",
                    () -> Scrape.get(nodeMetricsAgain, "/ready").statusCode() == 503);
            assertThat(Scrape.of(nodeMetricsAgain).value("weightstore_node_registered")).isZero();
        } finally {
            if (node != null) {
                node.kill();
            }
            master.stop();
        }
    }

    /** Waits for {@code process} to print a line {@code pattern} finds, and returns its first group. */
    static String await(CliProcess process, Pattern pattern) throws Exception {
        String[] found = new String[1];
        Awaits.until(Duration.ofSeconds(60), "a line matching " + pattern + " from the process", () -> {
            if (!process.isAlive()) {
                throw new AssertionError("the process ended: " + process.output());
            }
            Matcher m = pattern.matcher(process.output());
            if (m.find()) {
                found[0] = m.group(1);
                return true;
            }
            return false;
        });
        return found[0];
    }
}

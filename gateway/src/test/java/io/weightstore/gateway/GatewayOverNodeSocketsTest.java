package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway on a host without the nodes' pools: a master and a node on loopback, read over the
 * node's socket in chunks of the gateway's buffers, each sent from the off-heap buffer it was read into.
 */
class GatewayOverNodeSocketsTest {
    private static final int CHUNK = 64 << 10;
    private static final int SLOTS = 2;
    private static final String FILE = "blob.bin";

    @TempDir
    Path tmp;

    private MasterServer master;
    private StorageNode node;
    private StoreClient store;
    private S3Gateway gateway;
    private byte[] data;

    @BeforeEach
    void start() throws Exception {
        master = MasterServer.start(tmp.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure());
        node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("pool"), 64L << 20));
        store = StoreClient.connect("127.0.0.1:" + master.port(), ClientOptions.defaults().withSameHostPath(false));
        Path source = Files.createDirectories(tmp.resolve("source"));
        // Not a multiple of the chunk, so the last chunk is a short one.
        data = new byte[(5 << 20) + 12_345];
        new Random(11).nextBytes(data);
        Files.write(source.resolve(FILE), data);
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("remote"), "org/remote", "main", source, 1,
                false, 1), Progress.NONE);
        gateway = S3Gateway.start(new GatewayConfig(GatewayConfig.DEFAULT_HOST, 0, GatewayConfig.DEFAULT_BUCKET, Access.anonymousOnly(),
                SLOTS, 8, CHUNK, GatewayConfig.DEFAULT_IDLE_TIMEOUT,
                GatewayConfig.DEFAULT_REQUEST_HEAD_TIMEOUT, GatewayConfig.DEFAULT_SEND_TIMEOUT, GatewayConfig.DEFAULT_MAX_CONNECTIONS,
                CongestionControl.CUBIC),
                store);
    }

    @AfterEach
    void stop() throws Exception {
        gateway.close();
        store.close();
        node.close();
        master.close();
    }

    @Test
    void wholeObjectsAndRangesArriveByteForByteThroughTheNodesSockets() throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + gateway.port() + "/weights/remote/" + FILE);
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(whole.statusCode()).isEqualTo(200);
            assertThat(whole.body()).isEqualTo(data);
            // A range that starts and ends inside chunks, read by several GETs at once, which share two transfer slots.
            int from = CHUNK + 77;
            int to = 3 * CHUNK + 1_000;
            HttpRequest ranged = HttpRequest.newBuilder(uri).header("Range", "bytes=" + from + "-" + to).build();
            List<CompletableFuture<HttpResponse<byte[]>>> responses = IntStream.range(0, 6)
                    .mapToObj(i -> client.sendAsync(ranged, HttpResponse.BodyHandlers.ofByteArray())).toList();
            for (CompletableFuture<HttpResponse<byte[]>> pending : responses) {
                HttpResponse<byte[]> response = pending.join();
                assertThat(response.statusCode()).isEqualTo(206);
                assertThat(response.body()).isEqualTo(Arrays.copyOfRange(data, from, to + 1));
            }
        }
    }

    @Test
    void clientsThatLeaveMidBodyGiveTheirSlotsBackAndTheBuffersServeTheNextGetsWhole() throws Exception {
        for (int i = 0; i < SLOTS; i++) {
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(32 << 10);
                socket.connect(new InetSocketAddress(GatewayConfig.DEFAULT_HOST, gateway.port()));
                socket.getOutputStream().write(("GET /weights/remote/" + FILE + " HTTP/1.1\r\nHost: gateway\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(socket.getInputStream().readNBytes(256 << 10)).hasSize(256 << 10);
            }
        }
        // Every slot was held by a GET whose client left; were one not given back, the next GETs would wait on it for ever.
        URI uri = URI.create("http://127.0.0.1:" + gateway.port() + "/weights/remote/" + FILE);
        try (HttpClient client = HttpClient.newHttpClient()) {
            List<CompletableFuture<HttpResponse<byte[]>>> responses = IntStream.range(0, SLOTS)
                    .mapToObj(i -> client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofByteArray()))
                    .toList();
            for (CompletableFuture<HttpResponse<byte[]>> pending : responses) {
                HttpResponse<byte[]> response = pending.join();
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).isEqualTo(data);
            }
        }
    }
    @Test
    void requestsThatFindTheChecksDueTogetherMakeOneCallOfEachToTheMaster() throws Exception {
        URI file = URI.create("http://127.0.0.1:" + gateway.port() + "/weights/remote/" + FILE);
        URI bucket = URI.create("http://127.0.0.1:" + gateway.port() + "/weights?list-type=2");
        HttpRequest head = HttpRequest.newBuilder(file).method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        HttpRequest list = HttpRequest.newBuilder(bucket).build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            assertThat(client.send(head, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
            assertThat(client.send(list, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
            // Past the second a manifest's check and the checkpoints' listing hold.
            Thread.sleep(1_100);
            double stats = masterCalls("Stat");
            double lists = masterCalls("List");
            List<CompletableFuture<HttpResponse<Void>>> together = IntStream.range(0, 16)
                    .mapToObj(i -> client.sendAsync(i % 2 == 0 ? head : list, HttpResponse.BodyHandlers.discarding())).toList();
            for (CompletableFuture<HttpResponse<Void>> pending : together) {
                assertThat(pending.join().statusCode()).isEqualTo(200);
            }
            assertThat(masterCalls("Stat") - stats).as("checks of the manifest with the master").isEqualTo(1);
            assertThat(masterCalls("List") - lists).as("listings of the store's checkpoints").isEqualTo(1);
        }
    }

    @Test
    void aCheckpointTheStoreDoesNotHoldIsAskedForOnceASecond() throws Exception {
        HttpRequest head = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/weights/absent/" + FILE))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            double stats = masterCalls("Stat");
            for (int i = 0; i < 8; i++) {
                assertThat(client.send(head, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(404);
            }
            assertThat(masterCalls("Stat") - stats).as("checks with the master of a checkpoint it does not hold").isEqualTo(1);
        }
    }

    /** gRPC calls of {@code method} the master answered so far. */
    private double masterCalls(String method) {
        double calls = 0;
        for (MetricSnapshot metric : master.metrics().registry().scrape()) {
            if (metric.getMetadata().getName().equals("weightstore_master_calls")) {
                for (DataPointSnapshot point : metric.getDataPoints()) {
                    if (method.equals(point.getLabels().get("method"))) {
                        calls += ((CounterSnapshot.CounterDataPointSnapshot) point).getValue();
                    }
                }
            }
        }
        return calls;
    }
}

package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.CheckpointRemover;
import io.weightstore.weights.ImportRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's read leases and same-host reads, seen from a client: on a store of the test's own,
 * so that its checkpoints can be deleted and its pool spoiled.
 */
class GatewayLeaseTest {
    /** Where the bytes of a pool file begin, after its header (the store's PoolFile.DATA_START, not exported). */
    private static final long POOL_DATA_START = 4096;
    private static final String FILE = "blob.bin";

    @TempDir
    Path tmp;

    private StoreClient store;
    private Catalog catalog;
    private S3Gateway gateway;

    @BeforeEach
    void start() throws IOException {
        // Leases of 2 s, renewed every second: a file removed under a GET is found gone within about a second.
        store = EmbeddedStore.open(tmp.resolve("home"), 128L << 20, ClientOptions.defaults().withLeaseDuration(Duration.ofSeconds(2)));
        catalog = new Catalog(store);
        gateway = S3Gateway.start(new GatewayConfig(GatewayConfig.DEFAULT_HOST, 0, GatewayConfig.DEFAULT_BUCKET, Access.anonymousOnly(),
                4, 8, 64 << 10, GatewayConfig.DEFAULT_IDLE_TIMEOUT,
                GatewayConfig.DEFAULT_REQUEST_HEAD_TIMEOUT, GatewayConfig.DEFAULT_SEND_TIMEOUT, GatewayConfig.DEFAULT_MAX_CONNECTIONS,
                CongestionControl.CUBIC),
                store);
    }

    @AfterEach
    void stop() {
        gateway.close();
        store.close();
    }

    private byte[] importFile(CheckpointId id, int size) throws IOException {
        Path source = tmp.resolve(id.value());
        Files.createDirectories(source);
        byte[] data = new byte[size];
        new Random(5).nextBytes(data);
        Files.write(source.resolve(FILE), data);
        new CheckpointImporter(catalog).run(new ImportRequest(id, "org/" + id.value(), "main", source, 1, false, 1), Progress.NONE);
        return data;
    }

    @Test
    void aLeaseIsReleasedWhenTheClientDropsTheConnectionMidBody() throws Exception {
        CheckpointId id = new CheckpointId("dropped");
        importFile(id, 48 << 20);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(64 << 10);   // so the gateway is still writing when the client goes
            socket.connect(new InetSocketAddress(GatewayConfig.DEFAULT_HOST, gateway.port()));
            socket.getOutputStream().write(("GET /weights/dropped/" + FILE + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 << 10];
            for (long read = 0; read < 1 << 20; ) {
                int n = in.read(buffer);
                assertThat(n).isPositive();
                read += n;
            }
            assertThatThrownBy(() -> new CheckpointRemover(catalog).run(id, false)).isInstanceOf(CheckpointException.class)
                    .hasMessageContaining("is being read");
        }
        // The connection is gone mid-body: the gateway's next write fails and the GET ends, releasing its lease.
        LeasedDeletes.deleteOnceNotRead(catalog, id);
        assertThat(catalog.manifest(id)).isEmpty();
    }

    @Test
    void aFileSentInPlaceStopsOnceItsObjectIsRemovedUnderTheTransfer() throws Exception {
        CheckpointId id = new CheckpointId("removed");
        int size = 48 << 20;
        importFile(id, size);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(64 << 10);
            socket.connect(new InetSocketAddress(GatewayConfig.DEFAULT_HOST, gateway.port()));
            socket.getOutputStream().write(("GET /weights/removed/" + FILE + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[1 << 20];
            long read = in.readNBytes(buffer, 0, buffer.length);
            // Removed with force: the gateway's lease ends at its next renewal, and then the room is the store's to give again.
            store.remove("weights/removed/files/" + FILE, true);
            // Taken a MiB every 100 ms, so that the rest of the file takes over four seconds, and the gateway's reader, whose
            // lease is renewed every second, learns of the removal well before.
            for (int n = in.readNBytes(buffer, 0, buffer.length); n > 0; n = in.readNBytes(buffer, 0, buffer.length)) {
                read += n;
                Thread.sleep(100);
            }
            assertThat(read).as("bytes of the response, headers and all, before the gateway closed it").isLessThan(size);
        }
    }

    @Test
    void aSameHostGetOfACorruptPoolByteIsRefusedBeforeTheBytesLeave() throws Exception {
        CheckpointId id = new CheckpointId("rotten");
        byte[] data = importFile(id, 3 << 20);
        String key = "weights/rotten/files/" + FILE;
        long replica;
        try (ObjectReader reader = store.open(key)) {
            replica = reader.object().slices().getFirst().replicas().getFirst().offset();
        }
        try (FileChannel pool = FileChannel.open(tmp.resolve("home").resolve("pool"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long position = POOL_DATA_START + replica + 12_345;
            ByteBuffer b = ByteBuffer.allocate(1);
            pool.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0xFF)).rewind();
            pool.write(b, position);
        }
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port()
                    + "/weights/rotten/" + FILE)).header("Range", "bytes=0-99").build(), HttpResponse.BodyHandlers.ofByteArray());
            // The only copy is bad: no 206 with its bytes, an S3 error before any byte of the object.
            assertThat(response.statusCode()).isEqualTo(500);
            // The store's account of it names pool offsets and hosts: that is for the gateway's log, not for the client.
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).contains("<Code>InternalError</Code>")
                    .contains("<RequestId>" + response.headers().firstValue("x-amz-request-id").orElseThrow())
                    .doesNotContain("offset").doesNotContain("127.0.0.1");
            assertThat(response.body()).isNotEqualTo(Arrays.copyOf(data, 100));
            // Nor any header that describes the object: the error is not a part of it, and no cache may keep it as one.
            assertThat(response.headers().map()).doesNotContainKeys("etag", "last-modified", "content-range", "accept-ranges");
            assertThat(response.headers().firstValue("content-type")).hasValue("application/xml");
        }
    }
}

package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node takes the hellos of the previous protocol version, which name no pool, so that a cluster
 * upgrades one process at a time, nodes first; versions it never spoke are refused by name.
 */
class OlderClientHelloTest {
    private static final int LENGTH = 4096;

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private final byte[] data = new byte[LENGTH];

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp, 1);
        new Random(5).nextBytes(data);
        try (StoreClient client = cluster.client()) {
            client.put("probe", data, PutOptions.defaults());
        }
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private static byte[] helloOfVersion(short version) {
        return ByteBuffer.allocate(FrameCodec.HELLO_BYTES).putInt(FrameCodec.MAGIC).putShort(version).putShort((short) 0).array();
    }

    private Socket node() throws IOException {
        Socket socket = new Socket("127.0.0.1", cluster.node(0).port());
        socket.setSoTimeout(5000);
        return socket;
    }

    @Test
    void aVersion2HelloWithoutAPoolIsAdmittedAndItsReadsServed() throws IOException, FrameException {
        long offset;
        try (StoreClient client = cluster.client()) {
            SliceMeta slice = client.stat("probe").slices().getFirst();
            offset = slice.replicas().getFirst().offset();
        }
        try (Socket socket = node()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            socket.getOutputStream().write(helloOfVersion((short) 2));
            assertThat(FrameCodec.decodeHelloReply(ByteBuffer.wrap(in.readNBytes(FrameCodec.HELLO_BYTES))).status())
                    .isEqualTo(Status.OK);
            ByteBuffer read = FrameCodec.encode(new Request.Read(new Range(offset, LENGTH), List.of()), null);
            socket.getOutputStream().write(read.array(), 0, read.limit());
            byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
            FrameCodec.ResponseHeader response = FrameCodec.decodeResponseHeader(ByteBuffer.wrap(header));
            assertThat(response.status()).isEqualTo(Status.OK);
            assertThat(response.payloadLength()).isEqualTo(LENGTH);
            in.readNBytes(response.messageLength());
            assertThat(Arrays.equals(in.readNBytes(LENGTH), data)).isTrue();
        }
    }

    @Test
    void aVersionTheNodeDoesNotSpeakIsRefusedAndTheConnectionClosed() throws IOException, FrameException {
        for (short version : new short[] {1, (short) (FrameCodec.VERSION + 1)}) {
            try (Socket socket = node()) {
                socket.getOutputStream().write(helloOfVersion(version));
                assertThat(FrameCodec.decodeHelloReply(ByteBuffer.wrap(socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES)))
                        .status()).isEqualTo(Status.VERSION);
                assertThat(socket.getInputStream().read()).isEqualTo(-1);
            }
        }
    }
}

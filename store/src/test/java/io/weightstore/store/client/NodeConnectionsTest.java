package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Bytes;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.MappedNodeAccess;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a client keeps of a node that came back elsewhere, or of one another node replaced. */
class NodeConnectionsTest {
    private static final long CAPACITY = 4L << 20;
    private static final int BLOCK = 64 << 10;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void freeBuffers() {
        arena.close();
    }

    /** A new pool at {@code path} (replacing any pool there), its first block filled from {@code seed}; returns its identity. */
    private static UUID newPool(Path path, long seed) throws IOException {
        Files.deleteIfExists(path);
        try (PoolFile pool = PoolFile.openOrCreate(path, CAPACITY); Arena scratch = Arena.ofConfined()) {
            MemorySegment.copy(Bytes.random(scratch, BLOCK, seed), 0, pool.data(), 0, BLOCK);
            return pool.uuid();
        }
    }

    /** A client's node connections that map the pools this host sees, as a same-host load's do. */
    private static NodeConnections sameHostConnections() {
        return new NodeConnections(ClientOptions.defaults().withSameHostPath(true));
    }

    private static NodeInfo node(String id, int port, Path pool, UUID uuid) {
        return new NodeInfo(id, new Endpoint("127.0.0.1", port), pool.toString(), uuid, CAPACITY);
    }

    /** The first block of the pool that {@code held} reaches, read through it and checked against {@code seed}'s bytes. */
    private MemorySegment readFirstBlock(NodeConnections.Held held, long seed) throws IOException {
        MemorySegment expected = Bytes.random(arena, BLOCK, seed);
        MemorySegment dst = arena.allocate(BLOCK);
        held.access().read(List.of(new Range(0, BLOCK)), List.of(new BlockCheck(0, BLOCK, Checksums.crc32c(expected))), dst);
        return dst;
    }

    /** Mappings of this process of a file at {@code path} that was deleted since: memory the host cannot reclaim. */
    private static long deletedMappingsOf(Path path) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> line.endsWith(path + " (deleted)")).count();
    }

    @Test
    void aPoolReplacedUnderANodeStaysMappedUntilItsLastHolderIsDone() throws IOException {
        Path path = dir.resolve("node.pool");
        UUID first = newPool(path, 1);
        try (NodeConnections connections = sameHostConnections()) {
            NodeConnections.Held reading = connections.hold(node("n", 7001, path, first));
            assertThat(reading.access()).isInstanceOf(MappedNodeAccess.class);

            UUID second = newPool(path, 2);
            try (NodeConnections.Held newer = connections.hold(node("n", 7001, path, second))) {
                readFirstBlock(newer, 2);
            }
            assertThat(deletedMappingsOf(path)).as("the replaced pool, while a read holds it").isEqualTo(1);
            readFirstBlock(reading, 1);

            reading.close();
            assertThat(deletedMappingsOf(path)).as("the replaced pool, once its last holder is done").isZero();
        }
    }

    @Test
    void aNodeBackWithItsPoolOnAnotherPortKeepsThePoolMapped() throws IOException {
        Path path = dir.resolve("node.pool");
        UUID pool = newPool(path, 3);
        try (NodeConnections connections = sameHostConnections()) {
            try (NodeConnections.Held before = connections.hold(node("n", 7001, path, pool))) {
                readFirstBlock(before, 3);
            }
            try (NodeConnections.Held after = connections.hold(node("n", 7002, path, pool))) {
                readFirstBlock(after, 3);
            }
            assertThat(Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> line.endsWith(" " + path)).count())
                    .as("mappings of the pool").isEqualTo(1);
        }
    }

    @Test
    void aPoolMovedToAnotherPathIsReadThereAndTheOldFileUnmapped() throws IOException {
        Path before = dir.resolve("before.pool");
        Path after = dir.resolve("after.pool");
        UUID pool = newPool(before, 7);
        try (NodeConnections connections = sameHostConnections()) {
            try (NodeConnections.Held held = connections.hold(node("n", 7001, before, pool))) {
                readFirstBlock(held, 7);
            }
            // The operator moves the pool (as onto a tmpfs in huge pages), and the node writes there from then on.
            Files.copy(before, after);
            Files.delete(before);
            try (PoolFile moved = PoolFile.openOrCreate(after, CAPACITY); Arena scratch = Arena.ofConfined()) {
                MemorySegment.copy(Bytes.random(scratch, BLOCK, 8), 0, moved.data(), 0, BLOCK);
            }
            try (NodeConnections.Held held = connections.hold(node("n", 7001, after, pool))) {
                readFirstBlock(held, 8);
            }
            assertThat(deletedMappingsOf(before)).as("the pool's old file").isZero();
        }
    }

    @Test
    void anotherNodesPoolAtAMappedPoolsPathUnmapsTheOldOne() throws IOException {
        Path path = dir.resolve("node.pool");
        UUID lost = newPool(path, 4);
        try (NodeConnections connections = sameHostConnections()) {
            assertThat(connections.isLocal(node("lost", 7001, path, lost))).isTrue();
            // The host came back without its data: a new node, on a new port, with a new pool where the old one was.
            UUID fresh = newPool(path, 5);
            assertThat(connections.isLocal(node("fresh", 7002, path, fresh))).isTrue();
            assertThat(deletedMappingsOf(path)).as("the lost node's pool").isZero();
            assertThat(connections.isLocal(node("lost", 7001, path, lost))).as("the lost node's pool, asked for again").isFalse();
        }
    }

    @Test
    void aNodeBackOnAnotherPortLeavesNoConnectionToItsOldPort() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1)) {
            StoreClient client = cluster.client(ClientOptions.defaults().withSameHostPath(false));
            MemorySegment data = Bytes.random(arena, 3 * TestCluster.SLICE, 6);
            client.put("object", data, PutOptions.defaults().withReplicas(1));
            assertThat(Bytes.equal(Bytes.readWhole(client, "object", arena), data)).isTrue();
            int oldPort = cluster.node(0).port();
            assertThat(openConnectionsTo(oldPort)).as("connections pooled after the first read").isPositive();

            cluster.restartNode(0);
            assertThat(cluster.node(0).port()).isNotEqualTo(oldPort);
            assertThat(Bytes.equal(Bytes.readWhole(client, "object", arena), data)).isTrue();
            assertThat(openConnectionsTo(oldPort)).as("connections to the node's old port").isZero();
        }
    }

    /** This host's TCP sockets connected to {@code port} on loopback and not closed on this end (ESTABLISHED, CLOSE_WAIT). */
    private static long openConnectionsTo(int port) throws IOException {
        String remote = String.format(Locale.ROOT, ":%04X", port);
        long open = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 3 && fields[2].endsWith(remote) && (fields[3].equals("01") || fields[3].equals("08"))) {
                    open++;
                }
            }
        }
        return open;
    }
}

package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.Awaits;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node closes connections that sit idle past its idle timeout; the client's pool learns of it only
 * when it next takes one. Such a connection costs nothing but a new one: no failed read, no replica
 * taken for missing.
 */
class PooledConnectionsTest {
    /** The node closes a connection idle for 300 ms. */
    private static final TransferDeadlines DEADLINES = new TransferDeadlines(Duration.ofSeconds(2), 1_000_000, Duration.ofMillis(300));
    private static final int BYTES = 3 << 20;

    @TempDir
    Path tmp;

    private final DeadlineTimer timer = new DeadlineTimer("test-deadlines");
    private final Arena arena = Arena.ofShared();
    private MasterServer master;
    private StorageNode node;
    private SocketNodeAccess access;
    private MemorySegment written;

    @BeforeEach
    void start() throws IOException {
        master = MasterServer.start(tmp.resolve("master"), TestCluster.config(), "127.0.0.1", 0, MasterSecurity.insecure());
        node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("pool"), 8 << 20).withDeadlines(DEADLINES));
        access = new SocketNodeAccess("127.0.0.1", node.port(), node.poolUuid(), Optional.empty(), Ticket::none, DEADLINES, timer,
                CongestionControl.CUBIC);
        byte[] bytes = new byte[BYTES];
        new Random(7).nextBytes(bytes);
        written = arena.allocate(BYTES, 4096);
        MemorySegment.copy(bytes, 0, written, ValueLayout.JAVA_BYTE, 0, BYTES);
        access.write(0, written, Ticket.none());
    }

    @AfterEach
    void stop() throws IOException {
        access.close();
        node.close();
        master.close();
        timer.close();
        arena.close();
    }

    private void awaitIdleConnectionsClosed() throws Exception {
        Awaits.until(Duration.ofSeconds(10), "the node to close the pool's idle connection", () -> node.openConnections() == 0);
    }

    @Test
    void aReadOnAConnectionTheNodeClosedWhileIdleRunsOnANewOne() throws Exception {
        MemorySegment first = arena.allocate(BYTES);
        access.read(List.of(new Range(0, BYTES)), List.of(), first);
        assertThat(first.mismatch(written)).isEqualTo(-1);
        awaitIdleConnectionsClosed();
        MemorySegment again = arena.allocate(BYTES);
        access.read(List.of(new Range(0, BYTES)), List.of(), again);
        assertThat(again.mismatch(written)).isEqualTo(-1);
    }

    @Test
    void aCheckOnAConnectionTheNodeClosedWhileIdlePassesOnANewOne() throws Exception {
        List<BlockCheck> blocks = List.of(new BlockCheck(0, 1 << 20, Checksums.crc32c(written.asSlice(0, 1 << 20))),
                new BlockCheck(1 << 20, 2 << 20, Checksums.crc32c(written.asSlice(1 << 20, 2 << 20))));
        access.verify(blocks);
        awaitIdleConnectionsClosed();
        access.verify(blocks);
        awaitIdleConnectionsClosed();
        access.write(0, written.asSlice(0, 1 << 20), Ticket.none());
    }

    @Test
    void aNodeGoneForGoodIsStillAFailureAfterOneNewConnection() throws Exception {
        access.read(List.of(new Range(0, 1 << 20)), List.of(), arena.allocate(1 << 20));
        node.close();
        assertThatThrownBy(() -> access.read(List.of(new Range(0, 1 << 20)), List.of(), arena.allocate(1 << 20)))
                .isInstanceOf(ConnectException.class);
    }

    /** An exchange that ends after its access was closed must not pool its connection: close() emptied the pool already. */
    @Test
    void connectionsOfExchangesThatEndAfterTheAccessClosedAreClosedToo() throws Exception {
        TransferDeadlines longIdle = new TransferDeadlines(Duration.ofSeconds(2), 1_000_000, Duration.ofMinutes(1));
        try (StorageNode patient = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("pool-2"), 8 << 20)
                .withDeadlines(longIdle))) {
            SocketNodeAccess writer = new SocketNodeAccess("127.0.0.1", patient.port(), patient.poolUuid(), Optional.empty(),
                    Ticket::none, longIdle, timer, CongestionControl.CUBIC);
            writer.write(0, written, Ticket.none());
            writer.close();
            MemorySegment dst = arena.allocate(BYTES);
            for (int i = 0; i < 100; i++) {
                SocketNodeAccess racing = new SocketNodeAccess("127.0.0.1", patient.port(), patient.poolUuid(), Optional.empty(),
                        Ticket::none, longIdle, timer, CongestionControl.CUBIC);
                Thread reader = Thread.ofVirtual().start(() -> {
                    try {
                        racing.read(List.of(new Range(0, BYTES)), List.of(), dst);
                    } catch (IOException | IllegalStateException closedFirst) {
                        // the access was closed before the read took a connection
                    }
                });
                Thread.sleep(0, 200_000);
                racing.close();
                reader.join();
            }
            Awaits.until(Duration.ofSeconds(5), "every connection the test opened closed", () -> patient.openConnections() == 0);
        }
    }
}

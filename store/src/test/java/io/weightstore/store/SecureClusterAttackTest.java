package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.client.access.SocketNodeAccess;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.proto.FinishCopyRequest;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.MasterGrpc;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.TlsEndpoint;
import io.weightstore.store.wire.TlsTransport;
import io.weightstore.store.wire.Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attacker on the cluster's network, with no credential or with the wrong one, against a secure
 * cluster of real servers on loopback: every master method and every data-plane operation is
 * refused unless the caller's role allows it, nodes cannot be impersonated, and grants cannot be
 * stretched or lent.
 */
class SecureClusterAttackTest {
    /** Who may call what, written out here rather than read from the code under test. */
    private static final Map<String, Set<Role>> ALLOWED = new TreeMap<>(Map.ofEntries(
            Map.entry("RegisterNode", Set.of(Role.NODE)),
            Map.entry("Heartbeat", Set.of(Role.NODE)),
            Map.entry("FinishCopy", Set.of(Role.NODE)),
            Map.entry("PutStart", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("PutEnd", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("PutAbort", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("AbortPutsOf", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("Stat", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("Locate", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("RenewLease", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("ReleaseLease", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("LocateAll", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("ReleaseLeases", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("RenewLeases", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("Remove", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("RemoveAll", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("List", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("TryLock", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("RenewLock", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("ReleaseLock", Set.of(Role.WRITER, Role.ADMIN)),
            Map.entry("Status", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("Room", Set.of(Role.READER, Role.WRITER, Role.ADMIN)),
            Map.entry("RepairStart", Set.of(Role.ADMIN)),
            Map.entry("RepairEnd", Set.of(Role.ADMIN)),
            Map.entry("RepairAbort", Set.of(Role.ADMIN)),
            Map.entry("ForgetNode", Set.of(Role.ADMIN)),
            Map.entry("SetReplicas", Set.of(Role.ADMIN)),
            Map.entry("DrainNode", Set.of(Role.ADMIN)),
            Map.entry("KeepLocalCopies", Set.of(Role.READER, Role.WRITER, Role.ADMIN))));

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private final DeadlineTimer timer = new DeadlineTimer("attack-test");
    private final Arena arena = Arena.ofShared();

    @BeforeEach
    void start() throws StoreException {
        cluster = TestCluster.secure(tmp.resolve("cluster"), 2);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        timer.close();
        arena.close();
    }

    @Test
    void everyMasterMethodIsInThisTestsTable() {
        assertThat(MasterGrpc.getServiceDescriptor().getMethods().stream().map(MethodDescriptor::getBareMethodName)
                .collect(Collectors.toSet())).isEqualTo(ALLOWED.keySet());
    }

    @Test
    void aNodesPoolFileIsOpenToItsOwnerOnly() throws IOException {
        for (int i = 0; i < 2; i++) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cluster.pool(i)))).isEqualTo("rw-------");
        }
    }

    @Test
    void everyMasterMethodRefusesACallerWithoutCredentials() throws Exception {
        SslContext anonymous = GrpcSslContexts.forClient().trustManager(cluster.ca().certificate()).build();
        ManagedChannel channel = channel(anonymous);
        ManagedChannel forgedToken = channel(anonymous);
        Metadata bearer = new Metadata();
        bearer.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer wst_" + "A".repeat(43));
        try {
            for (MethodDescriptor<?, ?> method : MasterGrpc.getServiceDescriptor().getMethods()) {
                assertThat(codeOf(channel, method, defaultRequest(method), new Metadata())).as(method.getFullMethodName())
                        .isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(codeOf(forgedToken, method, defaultRequest(method), bearer)).as(method.getFullMethodName())
                        .isEqualTo(Status.Code.UNAUTHENTICATED);
            }
            // Each refusal says which it was: no credential at all, or a token this master does not know.
            MethodDescriptor<?, ?> list = MasterGrpc.getListMethod();
            assertThat(statusOf(channel, list, defaultRequest(list), new Metadata()).getDescription())
                    .startsWith("present a client certificate of this cluster or a bearer token");
            assertThat(statusOf(forgedToken, list, defaultRequest(list), bearer).getDescription())
                    .startsWith("this master does not know the bearer token presented").contains("restarted");
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            forgedToken.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void eachRoleMayCallOnlyTheMethodsItsRoleAllows() throws Exception {
        for (Role role : Set.of(Role.READER, Role.WRITER, Role.ADMIN, Role.NODE, Role.MASTER)) {
            String name = role.label() + "-9";
            ManagedChannel channel = channel(cluster.authentication(role, name).grpcClientContext());
            try {
                for (MethodDescriptor<?, ?> method : MasterGrpc.getServiceDescriptor().getMethods()) {
                    Message request = switch (method.getBareMethodName()) {
                        case "RegisterNode" -> RegisterNodeRequest.newBuilder().setTicketKey(ByteString.copyFrom(new byte[32]))
                                .setGrantKey(ByteString.copyFrom(new byte[32]))
                                .setNode(io.weightstore.store.proto.NodeInfo.newBuilder().setNodeId(name)).build();
                        case "Heartbeat" -> HeartbeatRequest.newBuilder().setNodeId(name).build();
                        case "FinishCopy" -> FinishCopyRequest.newBuilder().setNodeId(name).build();
                        default -> defaultRequest(method);
                    };
                    Status.Code code = codeOf(channel, method, request, new Metadata());
                    String what = role.label() + " calling " + method.getBareMethodName();
                    if (ALLOWED.get(method.getBareMethodName()).contains(role)) {
                        assertThat(code).as(what).isNotIn(Status.Code.PERMISSION_DENIED, Status.Code.UNAUTHENTICATED);
                    } else {
                        assertThat(code).as(what).isEqualTo(Status.Code.PERMISSION_DENIED);
                    }
                }
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aNodeCredentialCannotRegisterOrSpeakForAnotherNode() throws Exception {
        NodeInfo genuine = registered("node-0");
        try (GrpcMasterApi rogue = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.NODE, "node-1"),
                java.util.Optional.of(new NodeKeys()))) {
            NodeInfo impostor = new NodeInfo("node-0", new io.weightstore.store.api.Endpoint("127.0.0.1", 1), "/tmp/rogue",
                    genuine.poolUuid(), genuine.capacity());
            assertThatThrownBy(() -> rogue.registerNode(impostor)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.PERMISSION_DENIED))
                    .hasMessageContaining("node-1 cannot speak for node node-0");
            assertThatThrownBy(() -> rogue.heartbeat(io.weightstore.store.api.NodeReport.alive("node-0"))).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.PERMISSION_DENIED));
        }
        assertThat(registered("node-0")).isEqualTo(genuine);
    }

    @Test
    void removingWhatAReaderHoldsNeedsAnAdmin() throws Exception {
        try (StoreClient writer = cluster.client(clientAs(Role.WRITER, "writer-1"));
                StoreClient admin = cluster.client()) {
            writer.put("held", new byte[1000], PutOptions.defaults());
            try (ObjectReader held = writer.open("held")) {
                assertThatThrownBy(() -> writer.remove("held", true)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.PERMISSION_DENIED))
                        .hasMessageContaining("FORCE_DELETE");
                admin.remove("held", true);
            }
            assertThat(admin.list("")).isEmpty();
        }
    }

    @Test
    void aReaderReadsButCannotWriteOrDelete() throws Exception {
        byte[] bytes = "weights".repeat(1000).getBytes(StandardCharsets.UTF_8);
        try (StoreClient admin = cluster.client(); StoreClient reader = cluster.client(clientAs(Role.READER, "reader-1"))) {
            admin.put("w", bytes, PutOptions.defaults());
            assertThat(reader.readAll("w")).isEqualTo(bytes);
            assertRefused(() -> reader.put("x", bytes, PutOptions.defaults()), StoreException.Code.PERMISSION_DENIED);
            assertRefused(() -> reader.remove("w", false), StoreException.Code.PERMISSION_DENIED);
        }
    }

    @Test
    void aNodeServesNoOneWithoutATicketFromItsMaster() throws Exception {
        Authentication reader = cluster.authentication(Role.READER, "reader-1");
        assertThat(helloStatus("node-0", reader, new byte[0])).isEqualTo(io.weightstore.store.wire.Status.AUTH);
        assertThat(helloStatus("node-0", reader, new byte[200])).isEqualTo(io.weightstore.store.wire.Status.AUTH);
    }

    @Test
    void aPlaintextConnectionToASecureNodeGetsNoAnswerOfTheProtocol() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", cluster.node(0).port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(ByteBuffer.allocate(FrameCodec.HELLO_BYTES).putInt(FrameCodec.MAGIC)
                    .putShort(FrameCodec.VERSION).putShort((short) 0).array());
            byte[] answer = socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES);
            assertThat(answer.length < 4 || ByteBuffer.wrap(answer).getInt() != FrameCodec.MAGIC)
                    .as("a hello reply to a plaintext hello").isTrue();
        }
    }

    @Test
    void aSessionTicketForOneNodeIsRefusedByAnother() throws Exception {
        Located located = locateAs(Role.READER, "reader-1", placeObject());
        String holder = located.object().slice(0).replicas().getFirst().nodeId();
        String other = holder.equals("node-0") ? "node-1" : "node-0";
        Ticket forHolder = located.tickets().get(holder);
        assertThat(forHolder.isNone()).isFalse();
        Authentication reader = cluster.authentication(Role.READER, "reader-1");
        assertThat(helloStatus(other, reader, forHolder.bytes())).isEqualTo(io.weightstore.store.wire.Status.AUTH);
        assertThat(helloStatus(holder, reader, forHolder.bytes())).isEqualTo(io.weightstore.store.wire.Status.OK);
    }

    @Test
    void aTicketServesOnlyTheCertificateItWasSealedFor() throws Exception {
        Located located = locateAs(Role.READER, "reader-1", placeObject());
        String holder = located.object().slice(0).replicas().getFirst().nodeId();
        byte[] readersTicket = located.tickets().get(holder).bytes();
        assertThat(helloStatus(holder, cluster.authentication(Role.WRITER, "writer-1"), readersTicket))
                .isEqualTo(io.weightstore.store.wire.Status.AUTH);
    }

    @Test
    void aTicketOfACertificateCallerServesNoConnectionWithoutACertificate() throws Exception {
        Located located = locateAs(Role.READER, "reader-1", placeObject());
        String holder = located.object().slice(0).replicas().getFirst().nodeId();
        byte[] readersTicket = located.tickets().get(holder).bytes();
        // A token holder's connection presents no certificate: with the ticket read off reader-1's connection it would
        // otherwise pass for reader-1.
        Path tokenDir = tmp.resolve("thief-token");
        cluster.ca().issueToken(Role.READER, "thief", tokenDir, false);
        assertThat(helloStatus(holder, Authentication.load(tokenDir), readersTicket)).isEqualTo(io.weightstore.store.wire.Status.AUTH);
        assertThat(helloStatus(holder, cluster.authentication(Role.READER, "reader-1"), readersTicket))
                .isEqualTo(io.weightstore.store.wire.Status.OK);
    }

    @Test
    void aClientRefusesANodeThatIsNotTheOneTheMasterNamed() throws Exception {
        Located located = locateAs(Role.READER, "reader-1", placeObject());
        Authentication reader = cluster.authentication(Role.READER, "reader-1");
        TlsEndpoint expectingNode0 = TlsEndpoint.client(reader, ExpectedPeer.exactly(new Identity("node-0", Role.NODE)));
        try (SocketNodeAccess impostor = new SocketNodeAccess("127.0.0.1", cluster.node(1).port(), cluster.node(0).poolUuid(),
                Optional.of(expectingNode0),
                () -> located.tickets().getOrDefault("node-0", Ticket.none()), TransferDeadlines.defaults(), timer,
                        CongestionControl.CUBIC)) {
            assertThatThrownBy(() -> impostor.read(List.of(new Range(0, 100)), List.of(), arena.allocate(100)))
                    .isInstanceOf(IOException.class).hasMessageContaining("expected node node-0");
        }
    }

    @Test
    void aManInTheMiddleThatAltersBytesIsDetectedOnTlsAndMacConnections() throws Exception {
        assertTamperingDetected(cluster);
        try (TestCluster mac = TestCluster.secure(tmp.resolve("mac"), 1, DataPlaneProtection.MAC)) {
            assertTamperingDetected(mac);
        }
    }

    /** Reads and strided reads of a 1 MiB object through a proxy: intact bytes pass, one flipped byte fails the read. */
    private void assertTamperingDetected(TestCluster target) throws Exception {
        MemorySegment data = Bytes.random(arena, 1 << 20, 11);
        Located located;
        try (StoreClient admin = target.client()) {
            admin.put("tampered", data, PutOptions.defaults());
        }
        try (GrpcMasterApi master = GrpcMasterApi.connect(target.masterAddress(), target.authentication(Role.READER, "reader-1"))) {
            located = master.locate("tampered", java.time.Duration.ofSeconds(30));
        }
        ReplicaRef replica = located.object().slice(0).replicas().getFirst();
        Authentication reader = target.authentication(Role.READER, "reader-1");
        TlsEndpoint tls = TlsEndpoint.client(reader, ExpectedPeer.exactly(new Identity(replica.nodeId(), Role.NODE)));
        StorageNode holder = target.node(target.indexOf(replica.nodeId()));
        Stride columns = new Stride(replica.offset(), 1024, 4096, 256);
        for (long flipAt : new long[] {-1, 200_000}) {
            try (TamperingProxy proxy = new TamperingProxy(holder.port(), flipAt);
                    SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", proxy.port(), holder.poolUuid(), Optional.of(tls),
                            () -> located.tickets().get(replica.nodeId()), TransferDeadlines.defaults(), timer,
                                    CongestionControl.CUBIC)) {
                MemorySegment whole = arena.allocate(1 << 20);
                MemorySegment strided = arena.allocate(columns.bytes());
                if (flipAt < 0) {
                    node.read(List.of(new Range(replica.offset(), 1 << 20)), List.of(), whole);
                    assertThat(whole.mismatch(data)).isEqualTo(-1);
                } else {
                    assertThatThrownBy(() -> node.read(List.of(new Range(replica.offset(), 1 << 20)), List.of(), whole))
                            .isInstanceOf(IOException.class);
                    assertThatThrownBy(() -> {
                        node.readStrided(columns, List.of(), strided, false, OnBusy.WAIT);
                        node.readStrided(columns, List.of(), strided, false, OnBusy.WAIT);
                        node.readStrided(columns, List.of(), strided, false, OnBusy.WAIT);
                    }).isInstanceOf(IOException.class);
                }
            }
        }
    }

    @Test
    void aReaderCannotWriteIntoANodeEvenWithItsOwnTicket() throws Exception {
        Located located = locateAs(Role.READER, "reader-1", placeObject());
        ReplicaRef replica = located.object().slice(0).replicas().getFirst();
        try (SocketNodeAccess node = access(replica.nodeId(), cluster.authentication(Role.READER, "reader-1"),
                located.tickets().get(replica.nodeId()))) {
            assertRefused(() -> node.write(replica.offset(), arena.allocate(4096), Ticket.none()), StoreException.Code.UNAUTHENTICATED);
        }
    }

    @Test
    void aWriteGrantCoversOnlyItsPlaceAndOnlyForItsHolder() throws Exception {
        try (GrpcMasterApi writer = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.WRITER, "writer-1"));
                GrpcMasterApi other = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.WRITER, "writer-2"))) {
            // Two replicas each, so both puts have a place, and a session ticket, on both nodes.
            PutGrant grant = writer.putStart("granted", 8192, PutOptions.defaults().withReplicas(2));
            PutGrant othersGrant = other.putStart("others", 8192, PutOptions.defaults().withReplicas(2));
            ReplicaRef place = grant.object().slice(0).replicas().getFirst();
            Ticket session = grant.tickets().get(place.nodeId());
            Ticket write = grant.writeGrants().get(place);
            MemorySegment data = arena.allocate(8192);

            Authentication writer1 = cluster.authentication(Role.WRITER, "writer-1");
            try (SocketNodeAccess node = access(place.nodeId(), writer1, session)) {
                assertRefused(() -> node.write(place.offset() + 4096, data, write), StoreException.Code.UNAUTHENTICATED);
            }
            try (SocketNodeAccess node = access(place.nodeId(), writer1, session)) {
                assertRefused(() -> node.write(place.offset() + 8192, data.asSlice(0, 4096), write), StoreException.Code.UNAUTHENTICATED);
            }
            try (SocketNodeAccess lent = access(place.nodeId(), cluster.authentication(Role.WRITER, "writer-2"),
                    othersGrant.tickets().get(place.nodeId()))) {
                assertRefused(() -> lent.write(place.offset(), data, write), StoreException.Code.UNAUTHENTICATED);
            }
            try (SocketNodeAccess node = access(place.nodeId(), writer1, session)) {
                node.write(place.offset(), data.asSlice(0, 4096), write);
                node.write(place.offset() + 4096, data.asSlice(4096, 4096), write);
            }
            writer.putAbort(grant.putId());
            other.putAbort(othersGrant.putId());
        }
    }

    @Test
    void aWriterThatAbortsItsPutCannotWriteIntoTheNextObjectPlaced() throws Exception {
        Authentication writer1 = cluster.authentication(Role.WRITER, "writer-1");
        try (GrpcMasterApi writer = GrpcMasterApi.connect(cluster.masterAddress(), writer1); StoreClient admin = cluster.client()) {
            PutGrant aborted = writer.putStart("aborted", 8192, PutOptions.defaults().withReplicas(2));
            writer.putAbort(aborted.putId());
            byte[] bytes = new byte[8192];
            Arrays.fill(bytes, (byte) 7);
            admin.put("next", bytes, PutOptions.defaults().withReplicas(2));

            // The grants outlive the abort (a node cannot be told to forget them), so they write wherever they pointed.
            MemorySegment garbage = arena.allocate(8192).fill((byte) 0x5a);
            for (ReplicaRef place : aborted.object().slice(0).replicas()) {
                try (SocketNodeAccess node = access(place.nodeId(), writer1, aborted.tickets().get(place.nodeId()))) {
                    node.write(place.offset(), garbage, aborted.writeGrants().get(place));
                }
            }
            assertThat(admin.readAll("next")).isEqualTo(bytes);
        }
    }

    @Test
    void aRefusedRegistrationLeavesTheNodesKeysAlone() throws Exception {
        NodeInfo genuine = registered("node-0");
        // Its own certificate, another pool: a second process started by mistake on node-0's credentials.
        try (GrpcMasterApi second = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.NODE, "node-0"),
                java.util.Optional.of(new NodeKeys()))) {
            NodeInfo otherPool = new NodeInfo("node-0", genuine.endpoint(), "/tmp/another-pool", java.util.UUID.randomUUID(),
                    genuine.capacity());
            assertThatThrownBy(() -> second.registerNode(otherPool)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.INVALID_ARGUMENT));
        }
        byte[] bytes = new byte[8192];
        Arrays.fill(bytes, (byte) 3);
        try (StoreClient admin = cluster.client()) {
            admin.put("written", bytes, PutOptions.defaults().withReplicas(2));
            assertThat(admin.readAll("written")).isEqualTo(bytes);
        }
    }

    @Test
    void aGrantFromBeforeAMasterRestartWritesNothing() throws Exception {
        Authentication writer1 = cluster.authentication(Role.WRITER, "writer-1");
        PutGrant aborted;
        try (GrpcMasterApi writer = GrpcMasterApi.connect(cluster.masterAddress(), writer1)) {
            aborted = writer.putStart("aborted", 8192, PutOptions.defaults().withReplicas(2));
            writer.putAbort(aborted.putId());
        }
        // The restarted master no longer knows which room those grants reach, so it may place the next object there.
        cluster.stopMaster();
        cluster.startMaster();
        byte[] bytes = new byte[8192];
        Arrays.fill(bytes, (byte) 7);
        try (StoreClient admin = cluster.client()) {
            awaitNodesUp(admin, 2);
            admin.put("next", bytes, PutOptions.defaults().withReplicas(2));
            MemorySegment garbage = arena.allocate(8192).fill((byte) 0x5a);
            for (ReplicaRef place : aborted.object().slice(0).replicas()) {
                // The session ticket is still good (readers keep theirs across a restart); the write grant is not.
                try (SocketNodeAccess node = access(place.nodeId(), writer1, aborted.tickets().get(place.nodeId()))) {
                    assertRefused(() -> node.write(place.offset(), garbage, aborted.writeGrants().get(place)),
                            StoreException.Code.UNAUTHENTICATED);
                }
            }
            assertThat(admin.readAll("next")).isEqualTo(bytes);
        }
    }

    /** A secure cluster of one node in {@code dir}, whose puts (and so their write grants) last 2 s. */
    private TestCluster quickPuts(String dir) throws StoreException {
        return TestCluster.secure(tmp.resolve(dir), 1, DataPlaneProtection.TLS, new MasterConfig(TestCluster.SLICE,
                TestCluster.CHECKSUM_BLOCK, Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(2),
                0.95), UnaryOperator.identity());
    }

    @Test
    void aWriteGrantEndsWithItsPut() throws Exception {
        try (TestCluster quick = quickPuts("quick-puts");
                GrpcMasterApi writer = GrpcMasterApi.connect(quick.masterAddress(), quick.authentication(Role.WRITER, "writer-1"))) {
            PutGrant grant = writer.putStart("slow", 8192, PutOptions.defaults());
            ReplicaRef place = grant.object().slice(0).replicas().getFirst();
            Authentication writer1 = quick.authentication(Role.WRITER, "writer-1");
            TlsEndpoint tls = TlsEndpoint.client(writer1, ExpectedPeer.exactly(new Identity(place.nodeId(), Role.NODE)));
            MemorySegment data = arena.allocate(8192);
            try (SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", quick.node(0).port(), quick.node(0).poolUuid(), Optional.of(tls),
                    () -> grant.tickets().get(place.nodeId()), TransferDeadlines.defaults(), timer, CongestionControl.CUBIC)) {
                node.write(place.offset(), data, grant.writeGrants().get(place));
                // Past the put's deadline the master frees its room for the next put; the grant must not write there any more.
                Thread.sleep(Math.max(0, Duration.between(Instant.now(), grant.deadline()).toMillis()) + 500);
                assertRefused(() -> node.write(place.offset(), data, grant.writeGrants().get(place)), StoreException.Code.UNAUTHENTICATED);
            }
        }
    }

    /**
     * A writer that sends slowly enough kept its frame within the stall window past its grant's expiry, after which the
     * master gives the room to another put: the node ends the write at the expiry, and nothing lands after it.
     */
    @Test
    void aWriteStillArrivingWhenItsGrantExpiresIsCutOffThere() throws Exception {
        try (TestCluster quick = quickPuts("slow-writes");
                GrpcMasterApi writer = GrpcMasterApi.connect(quick.masterAddress(), quick.authentication(Role.WRITER, "writer-1"))) {
            PutGrant grant = writer.putStart("slow", 2 * HALF_A_WRITE, PutOptions.defaults());
            ReplicaRef place = grant.object().slice(0).replicas().getFirst();
            try (SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", quick.node(0).port()));
                    Transport tls = firstHalfOfAWrite(quick, socket, grant, place)) {
                // Within the stall window, but past the grant's expiry.
                Thread.sleep(Math.max(0, Duration.between(Instant.now(), grant.deadline()).toMillis()) + 500);
                assertThatThrownBy(() -> secondHalfOfAWrite(tls)).as("the node closed the connection at the grant's expiry")
                        .isInstanceOf(IOException.class);
            }
            assertThat(landedAfterTheFirstHalf(quick.pool(0), place)).as("sent after the expiry").isEqualTo(new byte[HALF_A_WRITE]);
        }
    }

    /**
     * A restarted master no longer knows the put a write in progress is for, and may give its room to the next put once
     * the node has registered with it: registering, the node ends that write.
     */
    @Test
    void aWriteInProgressWhenItsNodeRegistersWithARestartedMasterIsEnded() throws Exception {
        PutGrant grant;
        try (GrpcMasterApi writer = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(Role.WRITER, "writer-1"))) {
            grant = writer.putStart("across-a-restart", 2 * HALF_A_WRITE, PutOptions.defaults());
        }
        ReplicaRef place = grant.object().slice(0).replicas().getFirst();
        int node = cluster.indexOf(place.nodeId());
        try (SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", cluster.node(node).port()));
                Transport tls = firstHalfOfAWrite(cluster, socket, grant, place)) {
            cluster.stopMaster();
            cluster.startMaster();
            try (StoreClient admin = cluster.client()) {
                awaitNodesUp(admin, 2);
            }
            assertThatThrownBy(() -> secondHalfOfAWrite(tls)).as("the node ended the write when it registered again")
                    .isInstanceOf(IOException.class);
        }
        assertThat(landedAfterTheFirstHalf(cluster.pool(node), place)).isEqualTo(new byte[HALF_A_WRITE]);
    }

    private static final int HALF_A_WRITE = 64 << 10;

    /** Over {@code socket}, the hello, a WRITE of two halves under {@code grant}, and its first half of ones. */
    private static Transport firstHalfOfAWrite(TestCluster on, SocketChannel socket, PutGrant grant, ReplicaRef place) throws Exception {
        StorageNode node = on.node(on.indexOf(place.nodeId()));
        Transport tls = TlsTransport.handshake(socket, TlsEndpoint.client(on.authentication(Role.WRITER, "writer-1"),
                ExpectedPeer.exactly(new Identity(place.nodeId(), Role.NODE))));
        tls.writeFully(FrameCodec.encodeHello(node.poolUuid(), grant.tickets().get(place.nodeId())));
        ByteBuffer reply = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
        tls.readFully(reply);
        assertThat(FrameCodec.decodeHelloReply(reply).status()).isEqualTo(io.weightstore.store.wire.Status.OK);
        tls.writeFully(FrameCodec.encode(new io.weightstore.store.wire.Request.Write(new Range(place.offset(), 2 * HALF_A_WRITE),
                grant.writeGrants().get(place)), null));
        tls.writeFully(onesOfHalfAWrite());
        return tls;
    }

    /** The second half of ones, then the node's answer. */
    private static void secondHalfOfAWrite(Transport tls) throws IOException {
        tls.writeFully(onesOfHalfAWrite());
        tls.readFully(ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES));
    }

    private static ByteBuffer onesOfHalfAWrite() {
        byte[] ones = new byte[HALF_A_WRITE];
        Arrays.fill(ones, (byte) 1);
        return ByteBuffer.wrap(ones);
    }

    private static byte[] landedAfterTheFirstHalf(Path poolFile, ReplicaRef place) throws IOException {
        try (FileChannel pool = FileChannel.open(poolFile)) {
            ByteBuffer landed = ByteBuffer.allocate(HALF_A_WRITE);
            pool.read(landed, PoolFile.DATA_START + place.offset() + HALF_A_WRITE);
            return landed.array();
        }
    }

    @Test
    void aTokenNamesItsRoleAndOnlyItsHashIsKept() throws Exception {
        Path tokenDir = tmp.resolve("reader-token");
        cluster.ca().issueToken(Role.READER, "dashboard", tokenDir, false);
        cluster.stopMaster();
        cluster.startMaster();
        String token = Files.readString(tokenDir.resolve(Authentication.TOKEN_FILE)).strip();
        assertThat(Files.readString(cluster.tokens())).doesNotContain(token).contains("dashboard reader ");

        try (StoreClient admin = cluster.client(); StoreClient dashboard = cluster.client(ClientOptions.defaults()
                .withSameHostPath(false).withAuthentication(Authentication.load(tokenDir)))) {
            awaitNodesUp(admin, 2);
            byte[] bytes = new byte[5000];
            admin.put("for-the-dashboard", bytes, PutOptions.defaults());
            assertThat(dashboard.readAll("for-the-dashboard")).isEqualTo(bytes);
            assertRefused(() -> dashboard.put("x", bytes, PutOptions.defaults()), StoreException.Code.PERMISSION_DENIED);
        }
    }

    @Test
    void aPlaintextClientOfASecureMasterIsToldToBringCredentials() {
        try (StoreClient plain = StoreClient.connect(cluster.masterAddress(), ClientOptions.defaults())) {
            assertThatThrownBy(plain::status).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                    .hasMessageContaining("--credentials");
        } catch (StoreException e) {
            throw new AssertionError(e);
        }
    }

    /** What the master has of a node's registration. */
    private NodeInfo registered(String nodeId) throws IOException {
        try (StoreClient admin = cluster.client()) {
            return admin.status().nodes().stream().filter(n -> n.info().nodeId().equals(nodeId)).findFirst().orElseThrow().info();
        }
    }

    /** A restarted master knows no node's ticket key until each registers again, at its next heartbeat. */
    private static void awaitNodesUp(StoreClient client, int count) throws StoreException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (client.status().nodesUp() < count) {
            assertThat(System.nanoTime()).as("nodes up again within 20 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private String placeObject() throws IOException {
        try (StoreClient admin = cluster.client()) {
            admin.put("placed", new byte[10_000], PutOptions.defaults());
        }
        return "placed";
    }

    private Located locateAs(Role role, String name, String key) throws StoreException {
        try (GrpcMasterApi master = GrpcMasterApi.connect(cluster.masterAddress(), cluster.authentication(role, name))) {
            return master.locate(key, java.time.Duration.ofSeconds(30));
        }
    }

    private ClientOptions clientAs(Role role, String name) throws StoreException {
        return ClientOptions.defaults().withSameHostPath(false).withAuthentication(cluster.authentication(role, name));
    }

    private SocketNodeAccess access(String nodeId, Authentication as, Ticket session) throws Exception {
        StorageNode node = cluster.node(cluster.indexOf(nodeId));
        return new SocketNodeAccess("127.0.0.1", node.port(), node.poolUuid(),
                Optional.of(TlsEndpoint.client(as, ExpectedPeer.exactly(new Identity(nodeId, Role.NODE)))), () -> session,
                TransferDeadlines.defaults(), timer, CongestionControl.CUBIC);
    }

    /** The status a node answers a hello carrying {@code ticket} with, over TLS as {@code as}. */
    private io.weightstore.store.wire.Status helloStatus(String nodeId, Authentication as, byte[] ticket) throws Exception {
        StorageNode node = cluster.node(cluster.indexOf(nodeId));
        try (SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", node.port()));
                Transport tls = TlsTransport.handshake(socket, TlsEndpoint.client(as, ExpectedPeer.exactly(new Identity(nodeId,
                        Role.NODE))))) {
            tls.writeFully(FrameCodec.encodeHello(node.poolUuid(), Ticket.of(ticket)));
            ByteBuffer reply = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
            tls.readFully(reply);
            return FrameCodec.decodeHelloReply(reply).status();
        }
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, StoreException.Code code) {
        assertThatThrownBy(call).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(code));
    }

    private ManagedChannel channel(SslContext context) {
        return NettyChannelBuilder.forAddress("127.0.0.1", cluster.masterPort()).sslContext(context).build();
    }

    private static Message defaultRequest(MethodDescriptor<?, ?> method) {
        return (Message) ((MethodDescriptor.PrototypeMarshaller<?>) method.getRequestMarshaller()).getMessagePrototype();
    }

    @SuppressWarnings("unchecked")
    private static Status.Code codeOf(ManagedChannel channel, MethodDescriptor<?, ?> method, Message request, Metadata headers) {
        return statusOf(channel, method, request, headers).getCode();
    }

    private static Status statusOf(ManagedChannel channel, MethodDescriptor<?, ?> method, Message request, Metadata headers) {
        Channel withHeaders = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        try {
            ClientCalls.blockingUnaryCall(withHeaders.newCall((MethodDescriptor<Message, Message>) method,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), request);
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }
}

package io.weightstore.store.wire;

import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TestPki;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** A cluster CA with a node and a reader, their data-plane endpoints, and connections of each kind between them. */
final class TestTls {
    /**
     * The transports under test. In each MAC kind the two ends propose different chunk tags, so a
     * connection works only if both use the node's.
     */
    enum Kind {
        PLAIN,
        TLS,
        /** AES-GMAC, the node's choice; the client proposes Poly1305. */
        MAC,
        /** Poly1305, the node's choice; the client proposes AES-GMAC. */
        MAC_POLY1305
    }

    final TestPki pki;
    final Credentials node;
    final Credentials reader;
    final TlsEndpoint server;
    final TlsEndpoint client;

    private TestTls(TestPki pki, Credentials node, Credentials reader) throws Exception {
        this.pki = pki;
        this.node = node;
        this.reader = reader;
        this.server = TlsEndpoint.server(node, TlsEndpoint.ClientCertificates.REQUIRED);
        this.client = TlsEndpoint.client(reader, ExpectedPeer.exactly(node.identity()));
    }

    static TestTls create(Path dir) throws Exception {
        TestPki pki = TestPki.create(dir, "ca");
        return new TestTls(pki, pki.issue(Role.NODE, "node-1"), pki.issue(Role.READER, "reader-1"));
    }

    /** A connection of {@code kind}: the node accepting, the reader dialing. */
    Loopback.Ends connect(Kind kind) throws Exception {
        return Loopback.connect(opener(kind, server), opener(kind, client));
    }

    static Loopback.Opener opener(Kind kind, TlsEndpoint end) {
        return switch (kind) {
            case PLAIN -> PlainTransport::new;
            case TLS -> socket -> TlsTransport.handshake(socket, end);
            case MAC -> socket -> mac(TlsTransport.handshake(socket, end), ChunkTags.Algorithm.GMAC);
            case MAC_POLY1305 -> socket -> mac(TlsTransport.handshake(socket, end), ChunkTags.Algorithm.POLY1305);
        };
    }

    /** Switches to MAC framing with the node preferring {@code nodeTags} and the client the other kind. */
    static MacTransport mac(TlsTransport tls, ChunkTags.Algorithm nodeTags) throws IOException {
        ChunkTags.Algorithm other = nodeTags == ChunkTags.Algorithm.GMAC ? ChunkTags.Algorithm.POLY1305 : ChunkTags.Algorithm.GMAC;
        try {
            return MacTransport.switchFrom(tls, tls.isClient() ? other : nodeTags);
        } catch (IOException | RuntimeException e) {
            tls.close();
            throw e;
        }
    }

    /** {@code size} pseudo-random bytes, the same for the same seed. */
    static MemorySegment randomBytes(Arena arena, long size, long seed) {
        MemorySegment bytes = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
        SplittableRandom random = new SplittableRandom(seed);
        long at = 0;
        for (; at + Long.BYTES <= size; at += Long.BYTES) {
            bytes.set(ValueLayout.JAVA_LONG_UNALIGNED, at, random.nextLong());
        }
        for (; at < size; at++) {
            bytes.set(ValueLayout.JAVA_BYTE, at, (byte) random.nextInt());
        }
        return bytes;
    }
}

package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.security.NodeTicket;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A read grant, which the master seals for a node copying a slice from another: it admits only the
 * node it names, proven by its certificate, and reads exactly its range, nothing else.
 */
class ReadGrantAdmissionTest {
    private static final Identity COPIER = new Identity("node-1", Role.NODE);
    private final NodeKeys keys = new NodeKeys();
    private final Admission source = new Admission.Ticketed("node-0", keys);
    private final byte[] grant = NodeTicket.read("node-0", COPIER, Instant.now().plusSeconds(60), 8192, 4096).seal(keys.session()).bytes();

    @Test
    void aCopyingNodesConnectionIsNotClosedToMakeRoomAsAClientsIs() throws FrameException {
        // A copy reconnecting would present the read grant it started with, which a handshake refuses once it expired.
        assertThat(source.admit(grant, Optional.of(COPIER)).makesWayWhenIdle()).isFalse();
        Identity reader = new Identity("engine", Role.READER);
        byte[] session = NodeTicket.session("node-0", reader, Instant.now().plusSeconds(60), false).seal(keys.session()).bytes();
        assertThat(source.admit(session, Optional.empty()).makesWayWhenIdle()).isTrue();
    }

    @Test
    void theNamedNodeReadsItsRangeAndNothingElse() throws FrameException {
        Admission.Session session = source.admit(grant, Optional.of(COPIER));
        assertThatCode(() -> session.authorize(new Request.Read(new Range(8192, 4096), List.of()))).doesNotThrowAnyException();
        assertThatCode(() -> session.authorize(new Request.Read(new Range(9000, 100), List.of()))).doesNotThrowAnyException();
        assertThatThrownBy(() -> session.authorize(new Request.Read(new Range(8192, 4097), List.of()))).isInstanceOf(FrameException.class)
                .hasMessageContaining("does not cover offset=8192 length=4097");
        assertThatThrownBy(() -> session.authorize(new Request.ReadRanges(List.of(new Range(0, 10)), List.of())))
                .isInstanceOf(FrameException.class).hasMessageContaining("does not cover offset=0");
        assertThatThrownBy(() -> session.authorize(new Request.ReadStrided(new Stride(8192, 16, 32, 2), List.of())))
                .isInstanceOf(FrameException.class).hasMessageContaining("strided");
        assertThatThrownBy(() -> session.authorize(new Request.Write(new Range(8192, 4096), Ticket.of(grant))))
                .isInstanceOf(FrameException.class).hasMessageContaining("writes nothing");
    }

    @Test
    void aGrantShownWithoutItsNodesCertificateIsRefused() {
        assertThatThrownBy(() -> source.admit(grant, Optional.empty())).isInstanceOf(FrameException.class)
                .hasMessageContaining("certificate is absent");
        assertThatThrownBy(() -> source.admit(grant, Optional.of(new Identity("node-2", Role.NODE)))).isInstanceOf(FrameException.class)
                .hasMessageContaining("the read grant is " + COPIER);
    }

    @Test
    void aGrantSealedForAnotherNodeIsRefused() {
        Admission other = new Admission.Ticketed("node-2", keys);
        assertThatThrownBy(() -> other.admit(grant, Optional.of(COPIER))).isInstanceOf(FrameException.class);
    }
}

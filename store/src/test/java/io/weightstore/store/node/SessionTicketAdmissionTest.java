package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Range;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.security.NodeTicket;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A session ticket the master sealed for a caller it knew by its certificate serves only a connection that presents that
 * certificate; one for a caller it knew by a token serves a connection without one.
 */
class SessionTicketAdmissionTest {
    private static final Identity READER = new Identity("engine", Role.READER);
    private static final Request READ = new Request.Read(new Range(0, 4096), List.of());
    private final NodeKeys keys = new NodeKeys();
    private final Admission node = new Admission.Ticketed("node-0", keys);

    private byte[] session(boolean certified) {
        return NodeTicket.session("node-0", READER, Instant.now().plusSeconds(60), certified).seal(keys.session()).bytes();
    }

    @Test
    void aTicketBoundToACertificateIsRefusedOnAConnectionWithoutOne() {
        assertThatThrownBy(() -> node.admit(session(true), Optional.empty())).isInstanceOfSatisfying(FrameException.class, e -> {
            assertThat(e.status()).isEqualTo(Status.AUTH);
            assertThat(e.getMessage()).contains("bound to reader engine's certificate, and the connection presents none");
        });
    }

    @Test
    void aTicketBoundToACertificateServesThatCertificateOnly() throws FrameException {
        assertThatCode(() -> node.admit(session(true), Optional.of(READER)).authorize(READ)).doesNotThrowAnyException();
        assertThatThrownBy(() -> node.admit(session(true), Optional.of(new Identity("other", Role.READER))))
                .isInstanceOf(FrameException.class).hasMessageContaining("the connection's certificate is reader other's");
    }

    @Test
    void aTokenCallersTicketServesAConnectionWithoutACertificate() {
        assertThatCode(() -> node.admit(session(false), Optional.empty()).authorize(READ)).doesNotThrowAnyException();
    }
}

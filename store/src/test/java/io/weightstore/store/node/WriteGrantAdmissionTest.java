package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Range;
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
 * A write grant is checked with the node's grant key, which it renews at each registration; the
 * session a writer connected with is checked with the session key, which lasts.
 */
class WriteGrantAdmissionTest {
    private static final Identity WRITER = new Identity("writer-1", Role.WRITER);
    private final NodeKeys keys = new NodeKeys();
    private final Admission node = new Admission.Ticketed("node-0", keys);
    private final byte[] session = NodeTicket.session("node-0", WRITER, Instant.now().plusSeconds(60), false).seal(keys.session()).bytes();

    private Ticket grant() {
        return NodeTicket.write("node-0", WRITER, Instant.now().plusSeconds(60), 8192, 4096).seal(keys.grant());
    }

    @Test
    void aGrantWritesItsRangeUntilTheNodeRegistersAgain() throws FrameException {
        Admission.Session connected = node.admit(session, Optional.of(WRITER));
        Ticket before = grant();
        assertThatCode(() -> connected.authorize(new Request.Write(new Range(8192, 4096), before))).doesNotThrowAnyException();

        keys.renewGrantKey();
        assertThatThrownBy(() -> connected.authorize(new Request.Write(new Range(8192, 4096), before))).isInstanceOf(FrameException.class)
                .hasMessageContaining("write grant was not sealed for node node-0 by its master since the node last registered");
        assertThatCode(() -> connected.authorize(new Request.Read(new Range(0, 4096), List.of()))).as("the session lasts")
                .doesNotThrowAnyException();
        assertThatCode(() -> node.admit(session, Optional.of(WRITER))).as("so do new connections with it").doesNotThrowAnyException();
        Ticket after = grant();
        assertThatCode(() -> connected.authorize(new Request.Write(new Range(8192, 4096), after))).doesNotThrowAnyException();
    }

    @Test
    void aConnectionServesNoRequestPastItsSessionTicketsExpiry() throws Exception {
        byte[] brief = NodeTicket.session("node-0", WRITER, Instant.now().plusMillis(300), false).seal(keys.session()).bytes();
        Admission.Session connected = node.admit(brief, Optional.of(WRITER));
        Request read = new Request.Read(new Range(0, 4096), List.of());
        assertThatCode(() -> connected.authorize(read)).doesNotThrowAnyException();
        Thread.sleep(400);
        assertThatThrownBy(() -> connected.authorize(read)).isInstanceOf(FrameException.class)
                .hasMessageContaining("the connection's session ticket expired at")
                .satisfies(e -> assertThat(((FrameException) e).closeConnection()).isTrue());
    }

    @Test
    void theKeysAreNotInterchangeable() {
        Ticket sealedAsSession = NodeTicket.write("node-0", WRITER, Instant.now().plusSeconds(60), 8192, 4096).seal(keys.session());
        assertThatThrownBy(() -> node.admit(session, Optional.of(WRITER))
                .authorize(new Request.Write(new Range(8192, 4096), sealedAsSession))).isInstanceOf(FrameException.class);
        byte[] sessionAsGrant = NodeTicket.session("node-0", WRITER, Instant.now().plusSeconds(60), false).seal(keys.grant()).bytes();
        assertThatThrownBy(() -> node.admit(sessionAsGrant, Optional.of(WRITER))).isInstanceOf(FrameException.class)
                .hasMessageContaining("session ticket was not sealed for node node-0 by its master");
    }
}

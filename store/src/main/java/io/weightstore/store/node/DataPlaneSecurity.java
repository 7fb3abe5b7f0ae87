package io.weightstore.store.node;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.wire.PlainTransport;
import io.weightstore.store.wire.TlsEndpoint;
import io.weightstore.store.wire.TlsTransport;
import io.weightstore.store.wire.Transport;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.security.GeneralSecurityException;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * How a node's data plane protects its connections and whom it admits: plaintext and anyone (a node
 * started with {@code --insecure}), or TLS 1.3 with the node's certificate, callers admitted by the
 * master's tickets, and optionally a switch to authenticated chunks in clear ({@code mac}) after the
 * hello. Client certificates are optional, since token clients have none; one that is presented must
 * name the same caller as the ticket.
 */
record DataPlaneSecurity(Admission admission, Optional<TlsEndpoint> tls, boolean mac) {
    static DataPlaneSecurity of(NodeOptions options, String nodeId, Optional<NodeKeys> keys) throws StoreException {
        Admission admission = Admission.of(keys, nodeId);
        if (!(options.authentication() instanceof Authentication.Certificate c)) {
            return new DataPlaneSecurity(admission, Optional.empty(), false);
        }
        try {
            TlsEndpoint server = TlsEndpoint.server(c.credentials(), TlsEndpoint.ClientCertificates.OPTIONAL);
            return new DataPlaneSecurity(admission, Optional.of(server), options.dataPlane() == DataPlaneProtection.MAC);
        } catch (GeneralSecurityException e) {
            throw new StoreException(StoreException.Code.IO, "cannot set up TLS for the data plane: " + e.getMessage(), e);
        }
    }

    /** The connection as this node speaks it: the TLS handshake, when there is one, happens here. */
    Transport accept(SocketChannel socket) throws IOException {
        return tls.isPresent() ? TlsTransport.handshake(socket, tls.get()) : new PlainTransport(socket);
    }

    /** Who the peer proved to be with a certificate in the handshake, if it presented one. */
    static Optional<Identity> certifiedPeer(Transport transport) {
        return transport.session().flatMap(session -> {
            try {
                return Optional.of(Credentials.peerIdentity(session));
            } catch (SSLPeerUnverifiedException e) {
                return Optional.empty();
            }
        });
    }
}

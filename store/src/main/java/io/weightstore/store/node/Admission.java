package io.weightstore.store.node;

import io.weightstore.store.api.Range;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.security.NodeTicket;
import io.weightstore.store.security.Permission;
import io.weightstore.store.security.TicketKey;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Who may use a node's data plane, and for what. A secure node admits a connection only with a
 * session ticket the master sealed for it, and then serves each request only if the ticket's role
 * allows it; a write also needs the master's grant for exactly that place, sealed for the same
 * caller with the node's current grant key. A connection opened with a read grant instead (another
 * node copying a slice) may read that one range and nothing else. An open node (started with
 * {@code --insecure}) admits anyone to anything.
 */
sealed interface Admission {
    /** What one admitted connection may do. */
    @FunctionalInterface
    interface Session {
        /**
         * Refuses {@code request} unless the connection may make it; returns when its authority to land bytes ends, for
         * a write under a grant: the master frees the grant's room once it has expired, so none of its bytes may land after.
         */
        Optional<Instant> authorize(Request request) throws FrameException;

        /**
         * Whether the node may close the connection, idle, to admit another at its limit ({@link IdleConnections}): a
         * client reconnects with the newest ticket it holds, but a node copying a slice has only the read grant it
         * started with, which a new handshake refuses once it expired.
         */
        default boolean makesWayWhenIdle() {
            return true;
        }
    }

    /**
     * Admits the connection that presented {@code ticket} in its hello, or refuses it with AUTH; a
     * caller that proved an identity with a certificate in the TLS handshake ({@code certified}) must
     * be the ticket's, and a ticket the master bound to a certificate needs one, so a ticket read off
     * one client cannot serve another.
     */
    Session admit(byte[] ticket, Optional<Identity> certified) throws FrameException;

    record Open() implements Admission {
        @Override
        public Session admit(byte[] ticket, Optional<Identity> certified) {
            return request -> Optional.empty();
        }
    }

    record Ticketed(String nodeId, NodeKeys keys) implements Admission {
        @Override
        public Session admit(byte[] sealed, Optional<Identity> certified) throws FrameException {
            NodeTicket session = open(sealed, "session ticket", keys.session());
            if (session.kind() == NodeTicket.Kind.READ) {
                // Only nodes get read grants, and a node always dials with its certificate: a grant
                // shown without it was taken from its node.
                if (certified.isEmpty() || !certified.get().equals(session.caller())) {
                    throw refused(true, "the read grant is " + session.caller() + "'s, but the connection's certificate is "
                            + certified.map(Identity::toString).orElse("absent"));
                }
                return readOnly(session);
            }
            if (session.kind() != NodeTicket.Kind.SESSION && session.kind() != NodeTicket.Kind.CERTIFIED_SESSION) {
                throw refused(false, "a write grant is not a session ticket");
            }
            Identity caller = session.caller();
            if (session.kind() == NodeTicket.Kind.CERTIFIED_SESSION && certified.isEmpty()) {
                throw refused(true, "the session ticket is bound to " + caller + "'s certificate, and the connection presents none");
            }
            if (certified.isPresent() && !certified.get().equals(caller)) {
                throw refused(true, "the session ticket is " + caller + "'s, but the connection's certificate is " + certified.get()
                        + "'s");
            }
            return request -> {
                requireUnexpired(session);
                switch (request) {
                    case Request.Write w -> {
                        // The payload that follows cannot be skipped, so a refused write ends the connection.
                        if (!caller.role().allows(Permission.PUT)) {
                            throw refused(true, caller + " may not write");
                        }
                        NodeTicket grant = open(w.grant().bytes(), "write grant", keys.grant());
                        if (!grant.grants(w.range().offset(), w.range().length()) || !grant.caller().equals(caller)) {
                            throw refused(true, "no grant for " + caller + " to write offset=" + w.range().offset() + " length="
                                    + w.range().length());
                        }
                        return Optional.of(grant.expiresAt());
                    }
                    default -> {
                        if (!caller.role().allows(Permission.READ)) {
                            throw refused(false, caller + " may not read");
                        }
                        return Optional.empty();
                    }
                }
            };
        }

        /**
         * A connection that may read, and check, only the range its grant names. Its grant is checked for expiry at the
         * handshake only: a node's copy of a slice reads on one connection with one grant for as long as it makes
         * progress, which at a throttled copy rate may outlast the grant's 15 minutes.
         */
        private static Session readOnly(NodeTicket grant) {
            return new Session() {
                @Override
                public Optional<Instant> authorize(Request request) throws FrameException {
                    switch (request) {
                        case Request.Write w -> throw refused(true, grant.caller() + " holds a read grant, which writes nothing");
                        case Request.Read r -> requireGranted(grant, List.of(r.range()), r.checks());
                        case Request.ReadRanges r -> requireGranted(grant, r.ranges(), r.checks());
                        case Request.ReadStrided r -> throw refused(false, "a read grant is for whole ranges, not strided reads");
                    }
                    return Optional.empty();
                }

                @Override
                public boolean makesWayWhenIdle() {
                    return false;
                }
            };
        }

        private static void requireGranted(NodeTicket grant, List<Range> ranges, List<BlockCheck> checks) throws FrameException {
            for (Range range : ranges) {
                if (!grant.allowsRead(range.offset(), range.length())) {
                    throw refused(false, "the read grant of " + grant.caller() + " does not cover offset=" + range.offset() + " length="
                            + range.length());
                }
            }
            for (BlockCheck check : checks) {
                if (!grant.allowsRead(check.offset(), check.length())) {
                    throw refused(false, "the read grant of " + grant.caller() + " does not cover the block at offset=" + check.offset());
                }
            }
        }

        /** The ticket, when {@code key} sealed it for this node and it has not expired. */
        private NodeTicket open(byte[] sealed, String what, TicketKey key) throws FrameException {
            if (sealed.length == 0) {
                throw refused(true, "no " + what + ": this node admits only callers the master vouches for");
            }
            // The grant key changes at each registration: a grant sealed before the node last registered fails here too.
            String since = key == keys.grant() ? " since the node last registered" : "";
            NodeTicket ticket = NodeTicket.open(sealed, key)
                    .orElseThrow(() -> refused(true, what + " was not sealed for node " + nodeId + " by its master" + since));
            if (!ticket.node().equals(nodeId)) {
                throw refused(true, what + " is for node " + ticket.node() + ", this is " + nodeId);
            }
            if (ticket.expiresAt().isBefore(Instant.now())) {
                throw refused(true, what + " expired at " + ticket.expiresAt() + "; locate the object again for a fresh one");
            }
            return ticket;
        }

        /**
         * A ticket is checked at every request, not only when its connection opened: a connection kept busy (a
         * request within each idle timeout) would otherwise serve its caller for good.
         */
        private static void requireUnexpired(NodeTicket ticket) throws FrameException {
            if (ticket.expiresAt().isBefore(Instant.now())) {
                throw refused(true, "the connection's session ticket expired at " + ticket.expiresAt()
                        + "; connect again with a fresh one");
            }
        }

        private static FrameException refused(boolean closeConnection, String why) {
            return new FrameException(Status.AUTH, closeConnection, why);
        }
    }

    static Admission of(Optional<NodeKeys> keys, String nodeId) {
        return keys.<Admission>map(k -> new Ticketed(nodeId, k)).orElseGet(Open::new);
    }
}

package io.weightstore.store.security;

/**
 * A secure node's two ticket keys, both sent to its master at each registration. Session tickets and
 * read grants are sealed with the session key, which lives as long as the node, so readers' tickets
 * outlive a master's restart. Write grants are sealed with the grant key, which the node makes anew
 * at each registration: a node registers again when its master restarts or another master leads,
 * and that master has lost track of the grants its predecessor gave (which room they reach, until
 * when), so it could place another writer's bytes where an old grant still writes. With the new key
 * no grant from before can start a write (one already under way ends within the node's frame deadline).
 */
public final class NodeKeys {
    private final TicketKey session = TicketKey.generate();
    private volatile TicketKey grant = TicketKey.generate();

    public TicketKey session() {
        return session;
    }

    public TicketKey grant() {
        return grant;
    }

    /** Replaces the grant key, before a registration: write grants sealed with the old one are refused from now on. */
    public void renewGrantKey() {
        grant = TicketKey.generate();
    }
}

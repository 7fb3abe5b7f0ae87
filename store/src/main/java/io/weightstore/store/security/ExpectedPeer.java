package io.weightstore.store.security;

/**
 * Whom a caller means to reach. Peers are reached by node id or master name, not by host name, so this replaces
 * host-name verification: a client that dials the node the master named checks it is that node, and not another
 * identity the cluster CA issued (a reader's, or another node's).
 *
 * @param role the role the peer must have
 * @param name the name the peer must have, or null for any name with that role
 */
public record ExpectedPeer(Role role, String name) {
    public ExpectedPeer {
        if (role == null) {
            throw new IllegalArgumentException("role=null: an expected peer needs a role, one of " + Role.labels());
        }
        if (name != null && !Identity.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name=" + name + " must match " + Identity.NAME.pattern());
        }
    }

    /** Exactly this identity, e.g. the node the master named. */
    public static ExpectedPeer exactly(Identity identity) {
        return new ExpectedPeer(identity.role(), identity.name());
    }

    /** Anyone with {@code role}, e.g. any master. */
    public static ExpectedPeer anyWithRole(Role role) {
        return new ExpectedPeer(role, null);
    }

    public boolean matches(Identity presented) {
        return presented.role() == role && (name == null || name.equals(presented.name()));
    }

    @Override
    public String toString() {
        return name == null ? "any " + role.label() : role.label() + " " + name;
    }
}

package io.weightstore.store.master;

/**
 * Who may act on what another call took from the master (a read lease, a lock): the identity that
 * took it, or anyone when no identity took it (an insecure cluster serves none, and records from
 * before holders were kept name none).
 */
final class Holders {
    private Holders() {}

    /** Whether {@code caller} may renew or release what {@code holder} took. */
    static boolean allows(String holder, String caller) {
        return holder.isEmpty() || holder.equals(caller);
    }

    /** An identity as the master's messages name it. */
    static String named(String identity) {
        return identity.isEmpty() ? "an anonymous caller" : identity;
    }
}

package io.weightstore.store.api;

/**
 * One master of a group: where clients reach it and how it stands. The leader lists the masters alive in etcd; a
 * client adds each master it was given that the leader does not list, as it found it when it asked that master.
 *
 * @param error why the master is {@link State#UNREACHABLE} or {@link State#UNLISTED}, empty when it leads or follows
 */
public record MasterMember(String address, State state, String error) {
    /** How a master of the group stands. */
    public enum State {
        LEADER,
        FOLLOWER,
        /** Not alive in etcd, and this client could not reach it either: stopped, or cut off. */
        UNREACHABLE,
        /** Not alive in etcd, yet it answered this client: of another group, not joined yet, or cut off from etcd. */
        UNLISTED
    }

    /** A master the leader lists, alive in etcd. */
    public static MasterMember live(String address, boolean leader) {
        return new MasterMember(address, leader ? State.LEADER : State.FOLLOWER, "");
    }

    public boolean leader() {
        return state == State.LEADER;
    }
}

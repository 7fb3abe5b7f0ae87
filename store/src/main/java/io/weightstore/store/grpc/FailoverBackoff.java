package io.weightstore.store.grpc;

/**
 * How long one call over a group of masters waits before its next try: doubling from 25 ms up to a
 * second while no master leads (an election takes about the leader's etcd lease, 2 s by default), but
 * at most 200 ms before asking again a leader that said it is not ready yet (it is loading the
 * metadata, or waiting for its nodes to report in). Such a leader answers at once, so asking it often
 * costs it little; waited on as on an election, it had its nodes' heartbeats, and then the clients'
 * calls, each arrive up to a second after it was ready (README, a group of masters). One per call.
 */
final class FailoverBackoff {
    static final long FIRST_MS = 25;
    static final long MAX_MS = 1000;
    static final long MAX_NOT_READY_MS = 200;

    private long next = FIRST_MS;

    /** The pause before the next try, which makes the one after it longer. */
    long pause(boolean leaderNotReady) {
        long pause = leaderNotReady ? Math.min(next, MAX_NOT_READY_MS) : next;
        next = Math.min(next * 2, MAX_MS);
        return pause;
    }
}

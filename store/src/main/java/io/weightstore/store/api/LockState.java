package io.weightstore.store.api;

import java.time.Instant;

/**
 * A named lock after a lock call: whether the caller holds it, and who holds it until when.
 *
 * @param owner what its taker calls itself (a host, a process, an operation), as the taker chooses
 * @param holder the identity the master authenticated for the call that took it, which alone may renew
 *     or release it; empty on a cluster that serves no identities, and in answers that came over gRPC
 */
public record LockState(boolean held, String owner, Instant expiresAt, String holder) {
    public LockState(boolean held, String owner, Instant expiresAt) {
        this(held, owner, expiresAt, "");
    }
}

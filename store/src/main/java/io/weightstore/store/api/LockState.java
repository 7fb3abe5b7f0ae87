package io.weightstore.store.api;

import java.time.Instant;

/** A named lock after a lock call: whether the caller holds it, and who holds it until when. */
public record LockState(boolean held, String owner, Instant expiresAt) {}

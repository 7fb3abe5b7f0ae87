package io.weightstore.store.api;

import java.time.Instant;

/**
 * A read lease as the master persists it, so a master that takes over knows who is reading what.
 *
 * @param holder the caller who took it, who alone may renew or release it; empty on an insecure cluster
 */
public record ReadLease(String key, long leaseId, Instant expiresAt, String holder) {}

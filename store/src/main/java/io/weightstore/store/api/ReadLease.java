package io.weightstore.store.api;

import java.time.Instant;

/** A read lease as the master persists it, so a master that takes over knows who is reading what. */
public record ReadLease(String key, long leaseId, Instant expiresAt) {}

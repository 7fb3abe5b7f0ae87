package io.weightstore.store.api;

import java.time.Instant;

/** A read lease on an object: while it lasts, the object is not removed without force, nor evicted. */
public record Lease(long id, Instant expiresAt) {}

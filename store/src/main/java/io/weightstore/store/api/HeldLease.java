package io.weightstore.store.api;

/** A read lease a reader holds: the leased object's key and the lease's id, what it takes to end it. */
public record HeldLease(String key, long leaseId) {}

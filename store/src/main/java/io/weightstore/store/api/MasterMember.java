package io.weightstore.store.api;

/** One master of a group as the leader sees it: where clients reach it, and whether it leads. */
public record MasterMember(String address, boolean leader) {}

package io.weightstore.store.ha;

/**
 * A leader's right to write: the revision at which it created the leader key. Every metadata write
 * is an etcd transaction that commits only while the leader key still has this create revision, so
 * once the key expires or another master recreates it, nothing the old leader sends can commit.
 *
 * @param holder the value the leader wrote into the key (its address and incarnation), for messages
 */
record Fence(long revision, String holder) {}

package io.weightstore.store.security;

/**
 * The operations a request can ask for, one per thing a caller may be allowed or refused. Master RPCs and
 * data-plane ops each map to one of these; {@link Role#allows} decides.
 */
public enum Permission {
    /** Look up one object's size, slices and replicas. */
    STAT,
    /** List objects under a prefix, and the cluster's status. */
    LIST,
    /** Read bytes: ranges, range lists and strided ranges on the data plane. */
    READ,
    /** Take or renew a read lease, so an object is not removed while it is read. */
    LEASE,
    /** Start and seal a put, and write the bytes of a put the master granted to this caller. */
    PUT,
    /** Pin or unpin an object against eviction. */
    PIN,
    /** Take, renew or release a named lock (import and delete hold one). */
    LOCK,
    /** Remove an object no reader holds a lease on. */
    DELETE,
    /** Remove an object even while readers hold leases on it. */
    FORCE_DELETE,
    /** Drain, forget or re-weight a node; change replica counts. */
    MANAGE_NODES,
    /** Register a node's segment under the node id its credential names. */
    REGISTER,
    /** Tell the master the node is alive. */
    HEARTBEAT,
    /** Write a slice replica into a node, as repair or an added replica does. */
    REPLICATE,
    /** Free a node's ranges of deleted or abandoned objects. */
    RECLAIM,
    /** Exchange leadership and metadata with another master. */
    MASTER_SYNC
}

package io.weightstore.store.api;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The master's operations in domain terms. Implemented in-process by the master itself (the
 * embedded store) and over gRPC by a remote client, so callers have one code path for both;
 * protobuf stays at the gRPC edge.
 */
public interface MasterApi extends AutoCloseable {
    /**
     * Leases one {@link #locateAll} grants, one {@link #renewLeases} renews or one {@link #releaseLeases}
     * ends, at most: their records are one metadata write, and a group's store (etcd) takes 128
     * operations in one transaction.
     */
    int MAX_LEASES_PER_CALL = 64;

    /** A node announces itself and its pool, again after every restart; returns how often it must heartbeat. */
    Duration registerNode(NodeInfo node) throws StoreException;

    /**
     * Keeps a node up and takes its report (load, copies under way, bad copies its scrubber found);
     * answers with the copies the node should make and the replicas it should scrub next, or that the
     * master does not know it, so it must register again.
     */
    NodeOrders heartbeat(NodeReport report) throws StoreException;

    /**
     * A node reports how a copy it was asked to make ended. Only a copy that was written and checked
     * enters the object's metadata.
     */
    void finishCopy(String nodeId, String taskId, CopyOutcome outcome) throws StoreException;

    /** Reserves space for a new object and says where each slice's replicas go. */
    PutGrant putStart(String key, long size, PutOptions options) throws StoreException;

    /** Seals a put with each slice's block checksums; only now do readers see the object. */
    ObjectMeta putEnd(String putId, List<BlockCrcs> checksums) throws StoreException;

    /** Gives up a put and frees its space; abandoned puts are also reclaimed after their deadline. */
    void putAbort(String putId) throws StoreException;

    /**
     * Gives up every pending put of {@code writer} (a writer known to be dead) that the calling identity
     * started, and frees their space; returns how many.
     */
    int abortPutsOf(String writer) throws StoreException;

    ObjectMeta stat(String key) throws StoreException;

    /** Where the object's slices are, with a read lease; {@link Duration#ZERO} takes the master's default length. */
    Located locate(String key, Duration lease) throws StoreException;

    /** Extends a lease this reader holds; NOT_FOUND when it already expired or the object is gone. */
    Lease renewLease(String key, long leaseId, Duration lease) throws StoreException;

    /** Ends a read lease before it expires. */
    void releaseLease(String key, long leaseId) throws StoreException;

    /**
     * {@link #locate} of each of {@code keys}, in their order, all or nothing: NOT_FOUND for the first
     * key with no sealed object, and then no lease is taken; INVALID_ARGUMENT for more than
     * {@link #MAX_LEASES_PER_CALL} keys. One call, and one metadata write for all the leases, where a
     * checkpoint's files took one of each per file.
     */
    List<Located> locateAll(List<String> keys, Duration lease) throws StoreException;

    /** {@link #releaseLease} of each of {@code leases}, at most {@link #MAX_LEASES_PER_CALL}, in one call. */
    void releaseLeases(List<HeldLease> leases) throws StoreException;

    /**
     * {@link #renewLease} of each of {@code leases}, at most {@link #MAX_LEASES_PER_CALL}, in one call
     * and one metadata write: per lease, in their order, the lease renewed, or empty where
     * {@link #renewLease} would be NOT_FOUND (the lease ran out or was released, or the object is gone).
     */
    List<Optional<Lease>> renewLeases(List<HeldLease> leases, Duration lease) throws StoreException;

    /** Removes a sealed object; refused while readers hold leases unless {@code force}. */
    void remove(String key, boolean force) throws StoreException;

    /**
     * Removes the objects of {@code keys} all or nothing: refused, with nothing removed, while readers
     * hold a lease on any of them (unless {@code force}). Keys with no object are passed over; returns
     * how many were removed.
     */
    default int removeAll(List<String> keys, boolean force) throws StoreException {
        return removeAll(keys, force, "", "");
    }

    /**
     * As {@link #removeAll(List, boolean)}; with a {@code lock}, refused unless {@code writer} holds it, as
     * a put under a lock is: a writer paused past its lock's expiry must not remove what the next holder wrote.
     */
    int removeAll(List<String> keys, boolean force, String writer, String lock) throws StoreException;

    /** Sealed objects whose key starts with {@code prefix}, after {@code startAfter} (exclusive, may be empty), in key order. */
    ListPage list(String prefix, String startAfter, int limit) throws StoreException;

    LockState tryLock(String name, String owner, Duration ttl) throws StoreException;

    LockState renewLock(String name, String owner, Duration ttl) throws StoreException;

    void releaseLock(String name, String owner) throws StoreException;

    StoreStatus status() throws StoreException;

    /**
     * The status for a person to read: for a group, also each master the caller was given that the leader does not list,
     * as found when asked directly. That costs a call to each such master (up to a try's deadline for one that is frozen), so
     * only {@code store status} asks this; {@link #status()} is what a program polls.
     */
    default StoreStatus statusWithEveryMaster() throws StoreException {
        return status();
    }

    /** Space on the nodes that are up, and how much eviction could free. */
    Room room() throws StoreException;

    /**
     * Room for a new copy of slice {@code slice} of {@code key}, as sealed at {@code version} (its
     * {@code createdAt}): in place of the copy on {@code replacing} when that node is up (its bytes
     * are bad), else on an up node that holds no copy of the slice; an empty {@code replacing} adds
     * a copy to a slice that has fewer than its object's replica count. Refused when the object
     * changed since {@code version}, or another repair of the slice is pending.
     */
    RepairGrant repairStart(String key, Instant version, int slice, String replacing) throws StoreException;

    /** Commits a repair whose copy was written and checked: the object's metadata now names it. */
    ObjectMeta repairEnd(String repairId) throws StoreException;

    /** Gives up a repair and frees what it allocated; the metadata stays as it was. */
    void repairAbort(String repairId) throws StoreException;

    /**
     * Drops a node that is gone for good, and every replica it held from the objects' metadata.
     * Refused while it holds the only copy of a slice, and while it is up unless {@code force}.
     */
    NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException;

    /**
     * Sets how many copies of each slice the master keeps of the objects of {@code keys}: it copies
     * slices node to node up to that count, and drops copies beyond it (never below one good copy).
     * With {@code auto}, {@code replicas} is the floor, and the master adds copies while many readers
     * hold an object, within the nodes' room, and trims them once the readers are gone. Keys with no
     * object are passed over; returns how many objects changed.
     */
    int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException;

    /**
     * Has node {@code nodeId} keep a copy of every slice of the objects of {@code keys}, on top of
     * their replica count: the node on an engine's host, so that the engine's next load reads its own
     * memory, and other hosts may read from that copy too. Copies are made node to node, as room on
     * the node allows. Returns how many objects changed.
     */
    int keepLocalCopies(List<String> keys, String nodeId) throws StoreException;

    /**
     * Starts (or with {@code cancel} stops) moving every replica off a node, so it can leave: each is
     * copied to another node before it is dropped, and nothing new is placed on it. Returns how many
     * replicas it still holds.
     */
    NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException;

    @Override
    void close();
}

package io.weightstore.store.ha;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a master of a group serves: each call goes to the {@link io.weightstore.store.master.MasterCore}
 * of the leadership it holds now (the gate has already turned followers' calls away), and the
 * status adds the masters and etcd's health.
 */
final class LeaderApi implements MasterApi {
    private final MasterGroup group;

    LeaderApi(MasterGroup group) {
        this.group = group;
    }

    @Override
    public Duration registerNode(NodeInfo node) throws StoreException {
        return group.core().registerNode(node);
    }

    @Override
    public NodeOrders heartbeat(NodeReport report) throws StoreException {
        return group.core().heartbeat(report);
    }

    @Override
    public void finishCopy(String nodeId, String taskId, CopyOutcome outcome) throws StoreException {
        group.core().finishCopy(nodeId, taskId, outcome);
    }

    @Override
    public int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException {
        return group.core().setReplicas(keys, replicas, auto);
    }

    @Override
    public int keepLocalCopies(List<String> keys, String nodeId) throws StoreException {
        return group.core().keepLocalCopies(keys, nodeId);
    }

    @Override
    public NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException {
        return group.core().drainNode(nodeId, cancel);
    }

    @Override
    public PutGrant putStart(String key, long size, PutOptions options) throws StoreException {
        return group.core().putStart(key, size, options);
    }

    @Override
    public ObjectMeta putEnd(String putId, List<BlockCrcs> checksums) throws StoreException {
        return group.core().putEnd(putId, checksums);
    }

    @Override
    public void putAbort(String putId) throws StoreException {
        group.core().putAbort(putId);
    }

    @Override
    public int abortPutsOf(String writer) throws StoreException {
        return group.core().abortPutsOf(writer);
    }

    @Override
    public RepairGrant repairStart(String key, Instant version, int slice, String replacing) throws StoreException {
        return group.core().repairStart(key, version, slice, replacing);
    }

    @Override
    public ObjectMeta repairEnd(String repairId) throws StoreException {
        return group.core().repairEnd(repairId);
    }

    @Override
    public void repairAbort(String repairId) throws StoreException {
        group.core().repairAbort(repairId);
    }

    @Override
    public NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException {
        return group.core().forgetNode(nodeId, force);
    }

    @Override
    public int removeAll(List<String> keys, boolean force, String writer, String lock) throws StoreException {
        return group.core().removeAll(keys, force, writer, lock);
    }

    @Override
    public Room room() throws StoreException {
        return group.core().room();
    }

    @Override
    public ObjectMeta stat(String key) throws StoreException {
        return group.core().stat(key);
    }

    @Override
    public Located locate(String key, Duration lease) throws StoreException {
        return group.core().locate(key, lease);
    }

    @Override
    public Lease renewLease(String key, long leaseId, Duration lease) throws StoreException {
        return group.core().renewLease(key, leaseId, lease);
    }

    @Override
    public void releaseLease(String key, long leaseId) throws StoreException {
        group.core().releaseLease(key, leaseId);
    }

    @Override
    public List<Located> locateAll(List<String> keys, Duration lease) throws StoreException {
        return group.core().locateAll(keys, lease);
    }

    @Override
    public void releaseLeases(List<HeldLease> leases) throws StoreException {
        group.core().releaseLeases(leases);
    }

    @Override
    public List<Optional<Lease>> renewLeases(List<HeldLease> leases, Duration lease) throws StoreException {
        return group.core().renewLeases(leases, lease);
    }

    @Override
    public void remove(String key, boolean force) throws StoreException {
        group.core().remove(key, force);
    }

    @Override
    public ListPage list(String prefix, String startAfter, int limit) throws StoreException {
        return group.core().list(prefix, startAfter, limit);
    }

    @Override
    public LockState tryLock(String name, String owner, Duration ttl) throws StoreException {
        return group.core().tryLock(name, owner, ttl);
    }

    @Override
    public LockState renewLock(String name, String owner, Duration ttl) throws StoreException {
        return group.core().renewLock(name, owner, ttl);
    }

    @Override
    public void releaseLock(String name, String owner) throws StoreException {
        group.core().releaseLock(name, owner);
    }

    @Override
    public StoreStatus status() throws StoreException {
        return group.core().status().withGroup(group.members(), group.etcdHealth());
    }

    /** The group owns the cores; closing the endpoint's view of them closes nothing. */
    @Override
    public void close() {}
}

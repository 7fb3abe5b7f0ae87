package io.weightstore.store.master;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.StoredNode;
import java.util.ArrayList;
import java.util.List;

/** Changes to the master's records that are persisted together or not at all. */
public final class MetadataBatch {
    /** One change; the stores turn each into a put or a delete of one record. */
    public sealed interface Change {
        record PutObject(ObjectMeta object) implements Change {}

        record DeleteObject(String key) implements Change {}

        record PutNode(StoredNode node) implements Change {}

        record PutPending(PutGrant put) implements Change {}

        record DeletePending(String putId) implements Change {}

        record PutLock(String name, LockState lock) implements Change {}

        record DeleteLock(String name) implements Change {}

        record DeleteNode(String nodeId) implements Change {}

        record PutLease(ReadLease lease) implements Change {}

        record DeleteLease(long leaseId) implements Change {}

        record PutRetired(RetiredRange range) implements Change {}

        /** A retired range is named by where it is: a node's range is retired at most once until it is freed. */
        record DeleteRetired(ReplicaRef replica) implements Change {}

        record PutBadCopy(BadCopy copy) implements Change {}

        /** A bad copy is named by its key, slice and node: a slice has at most one copy on a node. */
        record DeleteBadCopy(String key, int slice, String nodeId) implements Change {}

        record PutReadTime(ReadTime read) implements Change {}

        /** An object has one read time, named by its key. */
        record DeleteReadTime(String key) implements Change {}
    }

    private final List<Change> changes = new ArrayList<>();

    public MetadataBatch putObject(ObjectMeta object) {
        return add(new Change.PutObject(object));
    }

    public MetadataBatch deleteObject(String key) {
        return add(new Change.DeleteObject(key));
    }

    public MetadataBatch putNode(NodeInfo node, boolean draining) {
        return add(new Change.PutNode(new StoredNode(node, draining)));
    }

    public MetadataBatch putPending(PutGrant put) {
        return add(new Change.PutPending(put));
    }

    public MetadataBatch deletePending(String putId) {
        return add(new Change.DeletePending(putId));
    }

    public MetadataBatch putLock(String name, LockState lock) {
        return add(new Change.PutLock(name, lock));
    }

    public MetadataBatch deleteLock(String name) {
        return add(new Change.DeleteLock(name));
    }

    public MetadataBatch deleteNode(String nodeId) {
        return add(new Change.DeleteNode(nodeId));
    }

    public MetadataBatch putLease(ReadLease lease) {
        return add(new Change.PutLease(lease));
    }

    public MetadataBatch deleteLease(long leaseId) {
        return add(new Change.DeleteLease(leaseId));
    }

    public MetadataBatch putRetired(RetiredRange range) {
        return add(new Change.PutRetired(range));
    }

    public MetadataBatch deleteRetired(ReplicaRef replica) {
        return add(new Change.DeleteRetired(replica));
    }

    public MetadataBatch putBadCopy(BadCopy copy) {
        return add(new Change.PutBadCopy(copy));
    }

    public MetadataBatch deleteBadCopy(String key, int slice, String nodeId) {
        return add(new Change.DeleteBadCopy(key, slice, nodeId));
    }

    public MetadataBatch putReadTime(ReadTime read) {
        return add(new Change.PutReadTime(read));
    }

    public MetadataBatch deleteReadTime(String key) {
        return add(new Change.DeleteReadTime(key));
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    private MetadataBatch add(Change change) {
        changes.add(change);
        return this;
    }

    public List<Change> changes() {
        return List.copyOf(changes);
    }

    /** The name of a retired range's record: its node and offset, which no other retired range shares. */
    public static String retiredName(ReplicaRef replica) {
        return replica.nodeId() + "/" + Long.toHexString(replica.offset());
    }

    /** The name of a bad copy's record: its node and slice first, since the key may hold any character. */
    public static String badCopyName(String key, int slice, String nodeId) {
        return nodeId + "/" + slice + "/" + key;
    }

    public static String badCopyName(BadCopy copy) {
        return badCopyName(copy.key(), copy.slice(), copy.replica().nodeId());
    }

    /** A batch of {@code changes}, in their order. */
    public static MetadataBatch of(List<Change> changes) {
        MetadataBatch batch = new MetadataBatch();
        batch.changes.addAll(changes);
        return batch;
    }
}

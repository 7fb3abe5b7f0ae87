package io.weightstore.store.master;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A metadata store that passes every call to another: tests override the calls whose failures they stage. */
abstract class ForwardingMetadataStore implements MetadataStore {
    private final MetadataStore store;

    ForwardingMetadataStore(MetadataStore store) {
        this.store = store;
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        store.apply(batch);
    }

    @Override
    public Optional<ObjectMeta> object(String key) throws StoreException {
        return store.object(key);
    }

    @Override
    public List<ObjectMeta> objects(String prefix, String startAfter, int limit) throws StoreException {
        return store.objects(prefix, startAfter, limit);
    }

    @Override
    public List<StoredNode> nodes() throws StoreException {
        return store.nodes();
    }

    @Override
    public List<PutGrant> pendingPuts() throws StoreException {
        return store.pendingPuts();
    }

    @Override
    public Optional<LockState> lock(String name) throws StoreException {
        return store.lock(name);
    }

    @Override
    public Map<String, LockState> locks() throws StoreException {
        return store.locks();
    }

    @Override
    public List<ReadLease> leases() throws StoreException {
        return store.leases();
    }

    @Override
    public List<RetiredRange> retiredRanges() throws StoreException {
        return store.retiredRanges();
    }

    @Override
    public List<BadCopy> badCopies() throws StoreException {
        return store.badCopies();
    }

    @Override
    public List<ReadTime> readTimes() throws StoreException {
        return store.readTimes();
    }

    @Override
    public void close() {
        store.close();
    }
}

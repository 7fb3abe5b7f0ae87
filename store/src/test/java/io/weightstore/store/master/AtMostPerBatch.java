package io.weightstore.store.master;

import io.weightstore.store.api.LockState;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.StoreException;
import java.util.List;
import java.util.Optional;

/** A metadata store that refuses a batch of more than {@code limit} changes, as etcd refuses a transaction of more than 128. */
final class AtMostPerBatch implements MetadataStore {
    private final MetadataStore store;
    private final int limit;

    AtMostPerBatch(MetadataStore store, int limit) {
        this.store = store;
        this.limit = limit;
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        if (batch.changes().size() > limit) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "a batch of " + batch.changes().size() + " changes; at most "
                    + limit + " are taken");
        }
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
    public List<NodeInfo> nodes() throws StoreException {
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
    public List<ReadLease> leases() throws StoreException {
        return store.leases();
    }

    @Override
    public List<RetiredRange> retiredRanges() throws StoreException {
        return store.retiredRanges();
    }

    @Override
    public void close() {
        store.close();
    }
}

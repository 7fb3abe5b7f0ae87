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

/** A metadata store whose disk fails once: the first batch with a change of a given kind is refused, and nothing of it written. */
final class FailsOneBatch implements MetadataStore {
    private final MetadataStore store;
    private final Class<? extends MetadataBatch.Change> kind;
    private boolean failed;

    FailsOneBatch(MetadataStore store, Class<? extends MetadataBatch.Change> kind) {
        this.store = store;
        this.kind = kind;
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        if (!failed && batch.changes().stream().anyMatch(kind::isInstance)) {
            failed = true;
            throw new StoreException(StoreException.Code.IO, "the metadata disk failed a batch with a " + kind.getSimpleName());
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

package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;

/** A metadata store that refuses a batch of more than {@code limit} changes, as etcd refuses a transaction of more than 128. */
final class AtMostPerBatch extends ForwardingMetadataStore {
    private final int limit;

    AtMostPerBatch(MetadataStore store, int limit) {
        super(store);
        this.limit = limit;
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        if (batch.changes().size() > limit) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "a batch of " + batch.changes().size() + " changes; at most "
                    + limit + " are taken");
        }
        super.apply(batch);
    }
}

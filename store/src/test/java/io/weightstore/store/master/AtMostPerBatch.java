package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;

/**
 * A metadata store that refuses a batch of more than {@code limit} changes, as etcd refuses a transaction of more than 128,
 * and applies a batch in parts of at most that many, as the etcd store does.
 */
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

    /** In parts of {@code limit} changes at most, each applied whole, in order, as the etcd store's parts are. */
    @Override
    public void applyInParts(MetadataBatch batch) throws StoreException {
        for (int from = 0; from < batch.changes().size(); from += limit) {
            apply(MetadataBatch.of(batch.changes().subList(from, Math.min(batch.changes().size(), from + limit))));
        }
    }
}

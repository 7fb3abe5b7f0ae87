package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;

/** A metadata store whose disk fails once: the first batch with a change of a given kind is refused, and nothing of it written. */
final class FailsOneBatch extends ForwardingMetadataStore {
    private final Class<? extends MetadataBatch.Change> kind;
    private boolean failed;

    FailsOneBatch(MetadataStore store, Class<? extends MetadataBatch.Change> kind) {
        super(store);
        this.kind = kind;
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        if (!failed && batch.changes().stream().anyMatch(kind::isInstance)) {
            failed = true;
            throw new StoreException(StoreException.Code.IO, "the metadata disk failed a batch with a " + kind.getSimpleName());
        }
        super.apply(batch);
    }
}

package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A metadata store whose disk stalls once, as etcd or a disk does under load: the next batch waits until the test lets it go. */
final class StallsOneBatch extends ForwardingMetadataStore {
    private final CountDownLatch stalled = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean armed;

    StallsOneBatch(MetadataStore store) {
        super(store);
    }

    /** The next batch applied stalls. */
    void arm() {
        armed = true;
    }

    void awaitStalled() throws InterruptedException {
        if (!stalled.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no batch was applied within 10 s of arming the stall");
        }
    }

    void release() {
        released.countDown();
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        if (armed) {
            armed = false;
            stalled.countDown();
            try {
                if (!released.await(30, TimeUnit.SECONDS)) {
                    throw new StoreException(StoreException.Code.IO, "the stalled batch was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException(StoreException.Code.IO, "interrupted in a stalled batch");
            }
        }
        super.apply(batch);
    }
}

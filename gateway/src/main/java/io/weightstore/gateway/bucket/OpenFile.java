package io.weightstore.gateway.bucket;

import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.ObjectReader;
import java.util.Optional;

/**
 * A file open for one request, under a read lease it may share with other requests for the file
 * ({@link SharedLeases}); closing it ends this request's use, and the last use ends the lease.
 */
public final class OpenFile implements AutoCloseable {
    private final SharedLeases.Lease lease;
    private boolean closed;

    OpenFile(SharedLeases.Lease lease) {
        this.lease = lease;
    }

    /** The file's object, to read through the store. */
    public ObjectReader reader() {
        return lease.reader();
    }

    /**
     * The whole object in place in the pool files of this host's nodes, checked, valid until this is
     * closed; empty when it is to be read through the store. The first request of a lease to ask opens it.
     */
    public Optional<InPlaceFiles> inPlace() {
        return lease.inPlace();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            lease.release();
        }
    }
}

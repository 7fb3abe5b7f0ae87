package io.weightstore.gateway;

import io.weightstore.store.Awaits;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointRemover;
import java.time.Duration;

/**
 * Deleting a checkpoint that a gateway has just served. A delete is refused while a read lease lasts,
 * and the gateway ends a GET's lease once its socket took the last byte (or failed), which the client
 * may see first; so a test waits for the lease to end rather than racing it.
 */
final class LeasedDeletes {
    private LeasedDeletes() {}

    /** Deletes {@code id} once no lease holds it, failing after 10 s or on any refusal other than a lease. */
    static void deleteOnceNotRead(Catalog catalog, CheckpointId id) throws Exception {
        Awaits.until(Duration.ofSeconds(10), "the read leases on checkpoint " + id + " to end", () -> {
            try {
                new CheckpointRemover(catalog).run(id, false);
                return true;
            } catch (CheckpointException e) {
                if (e.code() != CheckpointException.Code.LOCKED) {
                    throw e;
                }
                return false;
            }
        });
    }
}

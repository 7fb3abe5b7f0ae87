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

/**
 * The master's durable records: sealed objects, registered nodes (and which are being drained), pending
 * puts, locks and read leases. Changes go in batches applied all or nothing, so the master never
 * persists half an operation.
 */
public interface MetadataStore extends AutoCloseable {
    Optional<ObjectMeta> object(String key) throws StoreException;

    /** Sealed objects whose key starts with {@code prefix} and sorts after {@code startAfter} ("" for none), in key order. */
    List<ObjectMeta> objects(String prefix, String startAfter, int limit) throws StoreException;

    List<StoredNode> nodes() throws StoreException;

    List<PutGrant> pendingPuts() throws StoreException;

    Optional<LockState> lock(String name) throws StoreException;

    /** Every lock recorded, held or expired, by name. */
    Map<String, LockState> locks() throws StoreException;

    /** Every read lease recorded, expired or not; the master drops the expired ones. */
    List<ReadLease> leases() throws StoreException;

    /** Every range recorded as retired and not yet freed. */
    List<RetiredRange> retiredRanges() throws StoreException;

    /** Every copy recorded as bad and not yet rewritten or dropped. */
    List<BadCopy> badCopies() throws StoreException;

    /** The read time recorded for each object read since its record was last deleted. */
    List<ReadTime> readTimes() throws StoreException;

    void apply(MetadataBatch batch) throws StoreException;

    /**
     * Applies changes that each stand alone (one record per object, say), in order: whole, or, where
     * the store takes less in one write (etcd's transactions), in parts each applied whole. A failure
     * after the first part leaves the parts before it applied and this master serving no more, so the
     * next one loads what was written; the operations that write so are finished by running them again.
     */
    default void applyInParts(MetadataBatch batch) throws StoreException {
        apply(batch);
    }

    @Override
    void close();
}

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
import io.weightstore.store.grpc.Protos;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The master's records in RocksDB: one key space with a prefix per record type. Every write is
 * synced, so a master killed at any point restarts with every sealed object.
 */
public final class RocksMetadataStore implements MetadataStore {
    private static final String OBJECT = "o/";
    private static final String PENDING = "p/";
    private static final String NODE = "n/";
    private static final String LOCK = "l/";
    private static final String LEASE = "r/";
    private static final String RETIRED = "t/";
    private static final String BAD = "b/";
    private static final String READ = "a/";
    /**
     * RocksDB's own logs (LOG, then LOG.old.*) kept in the directory: every open starts a new one,
     * and the embedded store opens at every command, so without a bound they pile up by the thousand.
     */
    static final int KEPT_INFO_LOGS = 4;
    /** A master that runs for months rolls its log at this size, so the logs kept stay bounded too. */
    static final long INFO_LOG_BYTES = 16L << 20;

    static {
        RocksNativeLibrary.load();
    }

    /** Decodes one stored value. */
    @FunctionalInterface
    private interface Decoder<T> {
        T decode(byte[] value) throws StoreException;
    }

    private final RocksDB db;
    private final Options options;
    private final WriteOptions syncWrites;
    private final Path dir;
    /** RocksDB used after close dereferences freed memory and takes the process down: every use checks this first. */
    private volatile boolean closed;

    private RocksMetadataStore(Path dir, RocksDB db, Options options) {
        this.dir = dir;
        this.db = db;
        this.options = options;
        this.syncWrites = new WriteOptions().setSync(true);
    }

    public static RocksMetadataStore open(Path dir) throws StoreException {
        Options options = new Options().setCreateIfMissing(true).setKeepLogFileNum(KEPT_INFO_LOGS).setMaxLogFileSize(INFO_LOG_BYTES);
        try {
            Files.createDirectories(dir);
            return new RocksMetadataStore(dir, RocksDB.open(options, dir.toString()), options);
        } catch (RocksDBException | IOException e) {
            options.close();
            throw new StoreException(StoreException.Code.IO, "cannot open master metadata in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<ObjectMeta> object(String key) throws StoreException {
        return get(OBJECT + key, Protos::decodeObject);
    }

    @Override
    public List<ObjectMeta> objects(String prefix, String startAfter, int limit) throws StoreException {
        return scan(OBJECT + prefix, startAfter.isEmpty() ? "" : OBJECT + startAfter, limit, Protos::decodeObject);
    }

    @Override
    public List<StoredNode> nodes() throws StoreException {
        return scan(NODE, "", Integer.MAX_VALUE, Protos::decodeNode);
    }

    @Override
    public List<PutGrant> pendingPuts() throws StoreException {
        return scan(PENDING, "", Integer.MAX_VALUE, Protos::decodePut);
    }

    @Override
    public Optional<LockState> lock(String name) throws StoreException {
        return get(LOCK + name, Protos::decodeLock);
    }

    @Override
    public Map<String, LockState> locks() throws StoreException {
        Map<String, LockState> locks = new LinkedHashMap<>();
        scanEntries(LOCK, "", Integer.MAX_VALUE, (name, value) -> locks.put(name, Protos.decodeLock(value)));
        return locks;
    }

    @Override
    public List<ReadLease> leases() throws StoreException {
        return scan(LEASE, "", Integer.MAX_VALUE, Protos::decodeLease);
    }

    @Override
    public List<RetiredRange> retiredRanges() throws StoreException {
        return scan(RETIRED, "", Integer.MAX_VALUE, Protos::decodeRetired);
    }

    @Override
    public List<BadCopy> badCopies() throws StoreException {
        return scan(BAD, "", Integer.MAX_VALUE, Protos::decodeBadCopy);
    }

    @Override
    public List<ReadTime> readTimes() throws StoreException {
        return scan(READ, "", Integer.MAX_VALUE, Protos::decodeReadTime);
    }

    @Override
    public void apply(MetadataBatch batch) throws StoreException {
        requireOpen();
        try (WriteBatch write = new WriteBatch()) {
            for (MetadataBatch.Change change : batch.changes()) {
                switch (change) {
                    case MetadataBatch.Change.PutObject c -> write.put(bytes(OBJECT + c.object().key()), Protos.encode(c.object()));
                    case MetadataBatch.Change.DeleteObject c -> write.delete(bytes(OBJECT + c.key()));
                    case MetadataBatch.Change.PutNode c -> write.put(bytes(NODE + c.node().info().nodeId()), Protos.encode(c.node()));
                    case MetadataBatch.Change.PutPending c -> write.put(bytes(PENDING + c.put().putId()), Protos.encode(c.put()));
                    case MetadataBatch.Change.DeletePending c -> write.delete(bytes(PENDING + c.putId()));
                    case MetadataBatch.Change.PutLock c -> write.put(bytes(LOCK + c.name()), Protos.encode(c.lock()));
                    case MetadataBatch.Change.DeleteLock c -> write.delete(bytes(LOCK + c.name()));
                    case MetadataBatch.Change.DeleteNode c -> write.delete(bytes(NODE + c.nodeId()));
                    case MetadataBatch.Change.PutLease c -> write.put(bytes(leaseKey(c.lease().leaseId())), Protos.encode(c.lease()));
                    case MetadataBatch.Change.DeleteLease c -> write.delete(bytes(leaseKey(c.leaseId())));
                    case MetadataBatch.Change.PutRetired c -> write.put(bytes(RETIRED + MetadataBatch.retiredName(c.range().replica())),
                            Protos.encode(c.range()));
                    case MetadataBatch.Change.DeleteRetired c -> write.delete(bytes(RETIRED + MetadataBatch.retiredName(c.replica())));
                    case MetadataBatch.Change.PutBadCopy c -> write.put(bytes(BAD + MetadataBatch.badCopyName(c.copy())),
                            Protos.encode(c.copy()));
                    case MetadataBatch.Change.DeleteBadCopy c -> write.delete(bytes(BAD + MetadataBatch.badCopyName(c.key(), c.slice(),
                            c.nodeId())));
                    case MetadataBatch.Change.PutReadTime c -> write.put(bytes(READ + c.read().key()), Protos.encode(c.read()));
                    case MetadataBatch.Change.DeleteReadTime c -> write.delete(bytes(READ + c.key()));
                }
            }
            db.write(syncWrites, write);
        } catch (RocksDBException e) {
            throw failure("write " + batch.changes().size() + " records", e);
        }
    }

    private <T> Optional<T> get(String key, Decoder<T> decoder) throws StoreException {
        requireOpen();
        try {
            byte[] value = db.get(bytes(key));
            return value == null ? Optional.empty() : Optional.of(decoder.decode(value));
        } catch (RocksDBException e) {
            throw failure("read " + key, e);
        }
    }

    /** Records under {@code prefix} with keys after {@code startAfter} (exclusive, may be empty), in key order. */
    private <T> List<T> scan(String prefix, String startAfter, int limit, Decoder<T> decoder) throws StoreException {
        List<T> found = new ArrayList<>();
        scanEntries(prefix, startAfter, limit, (key, value) -> found.add(decoder.decode(value)));
        return found;
    }

    /** A record's key without the prefix scanned, and its value. */
    private interface Entry {
        void take(String key, byte[] value) throws StoreException;
    }

    private void scanEntries(String prefix, String startAfter, int limit, Entry entry) throws StoreException {
        requireOpen();
        byte[] prefixBytes = bytes(prefix);
        int taken = 0;
        try (RocksIterator it = db.newIterator()) {
            byte[] start = bytes(startAfter);
            // A start before the prefix would land on keys outside it, and the scan would end there with nothing.
            if (startAfter.isEmpty() || Arrays.compareUnsigned(start, prefixBytes) < 0) {
                it.seek(prefixBytes);
            } else {
                it.seek(start);
                if (it.isValid() && Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            for (; it.isValid() && taken < limit; it.next(), taken++) {
                byte[] key = it.key();
                if (!startsWith(key, prefixBytes)) {
                    break;
                }
                entry.take(new String(key, prefixBytes.length, key.length - prefixBytes.length, StandardCharsets.UTF_8), it.value());
            }
            it.status();
        } catch (RocksDBException e) {
            throw failure("scan " + prefix, e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        syncWrites.close();
        db.close();
        options.close();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the master metadata in " + dir + " is closed");
        }
    }

    /** Lease ids are unique across objects, so the id alone names the record. */
    private static String leaseKey(long leaseId) {
        return LEASE + Long.toHexString(leaseId);
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static StoreException failure(String what, Exception e) {
        return new StoreException(StoreException.Code.IO, "master metadata: cannot " + what + ": " + e.getMessage(), e);
    }
}

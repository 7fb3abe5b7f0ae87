package io.weightstore.store.master;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.weightstore.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The master's crash-safe metadata, in RocksDB: one key space with a prefix per record type, values
 * are protobuf messages. Every write is synced, so a master killed at any point restarts with every
 * sealed object.
 */
final class MasterDb implements AutoCloseable {
    static final String OBJECT = "o/";
    static final String PENDING = "p/";
    static final String NODE = "n/";
    static final String LOCK = "l/";

    static {
        RocksDB.loadLibrary();
    }

    private final RocksDB db;
    private final Options options;
    private final WriteOptions syncWrites;

    private MasterDb(RocksDB db, Options options) {
        this.db = db;
        this.options = options;
        this.syncWrites = new WriteOptions().setSync(true);
    }

    static MasterDb open(Path dir) throws StoreException {
        Options options = new Options().setCreateIfMissing(true);
        try {
            Files.createDirectories(dir);
            return new MasterDb(RocksDB.open(options, dir.toString()), options);
        } catch (RocksDBException | IOException e) {
            options.close();
            throw new StoreException(StoreException.Code.IO, "cannot open master metadata in " + dir + ": " + e.getMessage(), e);
        }
    }

    <T extends MessageLite> T get(String key, Parser<T> parser) throws StoreException {
        try {
            byte[] value = db.get(bytes(key));
            return value == null ? null : parser.parseFrom(value);
        } catch (RocksDBException | InvalidProtocolBufferException e) {
            throw failure("read " + key, e);
        }
    }

    /** Applies puts (value non-null) and deletes (value null) atomically. */
    void write(Batch batch) throws StoreException {
        try (WriteBatch write = new WriteBatch()) {
            for (Batch.Op op : batch.ops) {
                if (op.value() == null) {
                    write.delete(bytes(op.key()));
                } else {
                    write.put(bytes(op.key()), op.value().toByteArray());
                }
            }
            db.write(syncWrites, write);
        } catch (RocksDBException e) {
            throw failure("write " + batch.ops.size() + " records", e);
        }
    }

    void put(String key, MessageLite value) throws StoreException {
        write(new Batch().put(key, value));
    }

    void delete(String key) throws StoreException {
        write(new Batch().delete(key));
    }

    /**
     * Visits records under {@code prefix} with keys after {@code startAfter} (exclusive, may be empty),
     * in key order, until {@code visitor} has seen {@code limit} records.
     */
    <T extends MessageLite> void scan(String prefix, String startAfter, int limit, Parser<T> parser,
            BiConsumer<String, T> visitor) throws StoreException {
        byte[] prefixBytes = bytes(prefix);
        try (RocksIterator it = db.newIterator()) {
            if (startAfter.isEmpty()) {
                it.seek(prefixBytes);
            } else {
                byte[] start = bytes(startAfter);
                it.seek(start);
                if (it.isValid() && Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            int seen = 0;
            for (; it.isValid() && seen < limit; it.next()) {
                byte[] key = it.key();
                if (!startsWith(key, prefixBytes)) {
                    break;
                }
                visitor.accept(new String(key, StandardCharsets.UTF_8), parser.parseFrom(it.value()));
                seen++;
            }
            it.status();
        } catch (RocksDBException | InvalidProtocolBufferException e) {
            throw failure("scan " + prefix, e);
        }
    }

    <T extends MessageLite> List<T> scanAll(String prefix, Parser<T> parser) throws StoreException {
        List<T> all = new ArrayList<>();
        scan(prefix, "", Integer.MAX_VALUE, parser, (k, v) -> all.add(v));
        return all;
    }

    @Override
    public void close() {
        syncWrites.close();
        db.close();
        options.close();
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

    /** Records written together or not at all. */
    static final class Batch {
        record Op(String key, MessageLite value) {}

        private final List<Op> ops = new ArrayList<>();

        Batch put(String key, MessageLite value) {
            ops.add(new Op(key, value));
            return this;
        }

        Batch delete(String key) {
            ops.add(new Op(key, null));
            return this;
        }
    }
}

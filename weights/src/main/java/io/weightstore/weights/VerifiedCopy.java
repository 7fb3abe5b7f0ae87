package io.weightstore.weights;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The one way stored bytes are checked against a manifest: read the object chunk by chunk into
 * memory the caller chooses (a mapped output file, or one reused buffer when only the verdict
 * matters), hashing each chunk as it lands. Export, verify and metadata materialization all go
 * through here.
 */
public final class VerifiedCopy {
    /** Large enough that each chunk is read from every node at once, small enough to stay in memory. */
    public static final long CHUNK = 64L << 20;

    /** Where the chunk holding bytes {@code [offset, offset + length)} of the file lands. */
    @FunctionalInterface
    public interface Target {
        MemorySegment at(long offset, long length);

        /** Every chunk into the same reused buffer: the bytes are only hashed. */
        static Target discard(MemorySegment buffer) {
            return (offset, length) -> buffer.asSlice(0, length);
        }

        /** Each chunk into its place in {@code whole}: the bytes are kept. */
        static Target into(MemorySegment whole) {
            return whole::asSlice;
        }
    }

    private VerifiedCopy() {}

    /** Reads all of {@code object} through {@code target} and returns its SHA-256, in hex. */
    public static String run(ObjectReader object, long chunk, Target target, Progress progress) throws IOException {
        Sha256 sha = new Sha256();
        for (long done = 0; done < object.size(); ) {
            long length = Math.min(chunk, object.size() - done);
            MemorySegment bytes = target.at(done, length);
            object.read(new Range(done, length), bytes);
            sha.update(bytes);
            done += length;
            progress.advanced(length);
        }
        return sha.hex();
    }
}

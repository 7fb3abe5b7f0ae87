package io.weightstore.weights.checks;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 over an object's checksum block size and the CRC32C of each of its blocks, in order (all
 * big-endian u32): one short string that pins down the checksums every read of the object is
 * checked against. Recorded in the manifest at import, it lets a loader tell from metadata alone,
 * without reading a byte, that an object was replaced by other bytes since. Slices are whole
 * numbers of blocks, so the blocks of an object are those of its bytes, and the digest can be
 * computed from the master's metadata or from the bytes themselves.
 */
public final class BlockChecksumDigest {
    private BlockChecksumDigest() {}

    /** The digest of the checksums the master holds for {@code object}. */
    public static String of(ObjectMeta object) {
        MessageDigest sha = sha256();
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(object.checksumBlockSize()).flip());
        for (SliceMeta slice : object.slices()) {
            ByteBuffer crcs = ByteBuffer.allocate(slice.crcs().count() * Integer.BYTES);
            for (int crc : slice.crcs().toArray()) {
                crcs.putInt(crc);
            }
            sha.update(crcs.flip());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The digest an object holding {@code bytes} in blocks of {@code blockSize} has. */
    public static String of(MemorySegment bytes, int blockSize) {
        MessageDigest sha = sha256();
        ByteBuffer word = ByteBuffer.allocate(Integer.BYTES);
        sha.update(word.putInt(0, blockSize));
        for (long at = 0; at < bytes.byteSize(); at += blockSize) {
            word.clear();
            sha.update(word.putInt(0, Checksums.crc32c(bytes.asSlice(at, Math.min(blockSize, bytes.byteSize() - at)))));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

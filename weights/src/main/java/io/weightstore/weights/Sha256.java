package io.weightstore.weights;

import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 over off-heap memory, fed in chunks so no heap copy of the data is made. */
public final class Sha256 {
    private static final long CHUNK = 1 << 30;

    private final MessageDigest digest;

    public Sha256() {
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    public Sha256 update(MemorySegment bytes) {
        for (long done = 0; done < bytes.byteSize(); done += CHUNK) {
            digest.update(bytes.asSlice(done, Math.min(CHUNK, bytes.byteSize() - done)).asByteBuffer());
        }
        return this;
    }

    public String hex() {
        return HexFormat.of().formatHex(digest.digest());
    }

    public static String of(MemorySegment bytes) {
        return new Sha256().update(bytes).hex();
    }
}

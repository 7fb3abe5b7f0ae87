package io.weightstore.weights;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The id Git gives bytes stored as a blob: the SHA-1 of {@code "blob SIZE\0"} followed by the bytes. */
public final class GitBlobId {
    private static final long CHUNK = 1 << 30;

    private GitBlobId() {}

    public static String of(MemorySegment bytes) {
        MessageDigest sha1;
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
        sha1.update(("blob " + bytes.byteSize() + "\0").getBytes(StandardCharsets.US_ASCII));
        for (long done = 0; done < bytes.byteSize(); done += CHUNK) {
            sha1.update(bytes.asSlice(done, Math.min(CHUNK, bytes.byteSize() - done)).asByteBuffer());
        }
        return HexFormat.of().formatHex(sha1.digest());
    }
}

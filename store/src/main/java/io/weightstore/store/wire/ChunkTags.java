package io.weightstore.store.wire;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.IvParameterSpec;

/**
 * The tags of the chunks one direction of a {@link MacTransport} carries, in order: Poly1305 by way
 * of the JDK's ChaCha20-Poly1305 AEAD (RFC 8439) with an empty plaintext, the chunk's header word
 * and payload as its associated data. The nonce is the chunk's sequence number in that direction,
 * never sent, so a chunk replayed, dropped or moved fails as surely as one altered.
 *
 * <p>Poly1305 because it was the fastest of the JDK's MACs here, about 11 GB/s per core
 * against about 3 for AES-GMAC (the JDK copies associated data into arrays of its own) and 1.7 for
 * HMAC-SHA256 ({@code FrameMacBenchmark} in the bench module). Its intrinsic reads arrays only, so
 * off-heap payloads are staged through a small array that stays in L1.
 *
 * <p>Not thread-safe: one per direction, used under that direction's lock.
 */
final class ChunkTags {
    static final int TAG_BYTES = 16;
    private static final int STAGE_BYTES = 16 << 10;
    private static final int NONCE_BYTES = 12;

    private final SecretKey key;
    private final Cipher cipher;
    private final byte[] stage = new byte[STAGE_BYTES];
    private final byte[] nonce = new byte[NONCE_BYTES];
    private long sequence;

    /** {@code key}: a 256-bit ChaCha20 key used for this direction alone. */
    ChunkTags(SecretKey key) throws GeneralSecurityException {
        this.key = key;
        this.cipher = Cipher.getInstance("ChaCha20-Poly1305");
    }

    /** Tags the next chunk into {@code tag} (at least {@link #TAG_BYTES} from its position, which advances). */
    void sign(int word, ByteBuffer payload, ByteBuffer tag) throws GeneralSecurityException {
        cipher.init(Cipher.ENCRYPT_MODE, key, nextNonce());
        authenticate(word, payload);
        tag.put(cipher.doFinal());
    }

    /** Checks the next chunk against the tag that came with it; a mismatch is an {@code AEADBadTagException}. */
    void verify(int word, ByteBuffer payload, byte[] tag) throws GeneralSecurityException {
        cipher.init(Cipher.DECRYPT_MODE, key, nextNonce());
        authenticate(word, payload);
        // The ciphertext is the tag alone; the AEAD compares it in constant time and throws AEADBadTagException.
        cipher.doFinal(tag);
    }

    /** Chunks tagged or checked so far; the next one's number. */
    long sequence() {
        return sequence;
    }

    private IvParameterSpec nextNonce() {
        long n = sequence++;
        for (int i = 0; i < Long.BYTES; i++) {
            nonce[NONCE_BYTES - 1 - i] = (byte) (n >>> (8 * i));
        }
        return new IvParameterSpec(nonce);
    }

    /** Feeds the header word and the payload, from its position to its limit (left unchanged), as associated data. */
    private void authenticate(int word, ByteBuffer payload) {
        stage[0] = (byte) (word >>> 24);
        stage[1] = (byte) (word >>> 16);
        stage[2] = (byte) (word >>> 8);
        stage[3] = (byte) word;
        cipher.updateAAD(stage, 0, Integer.BYTES);
        for (int at = payload.position(); at < payload.limit(); ) {
            int n = Math.min(STAGE_BYTES, payload.limit() - at);
            payload.get(at, stage, 0, n);
            cipher.updateAAD(stage, 0, n);
            at += n;
        }
    }
}

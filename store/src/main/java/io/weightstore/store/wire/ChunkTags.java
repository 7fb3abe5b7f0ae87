package io.weightstore.store.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;

/**
 * The tags of the chunks one direction of a {@link MacTransport} carries, in order: the MAC of a
 * JDK AEAD with an empty plaintext, the chunk's header word and payload as its associated data. The
 * nonce is the chunk's sequence number in that direction, never sent, so a chunk replayed, dropped
 * or moved fails as surely as one altered. The AEAD's intrinsics read arrays only, so off-heap
 * payloads are staged through a small array that stays in L1.
 *
 * <p>Not thread-safe: one per direction, used under that direction's lock.
 */
final class ChunkTags {
    static final int TAG_BYTES = 16;
    private static final int STAGE_BYTES = 16 << 10;
    private static final int NONCE_BYTES = 12;

    /**
     * The MACs a connection can tag its chunks with, each the fastest of the JDK's on some CPUs
     * ({@code FrameMacBenchmark} in the bench module): Poly1305 about 11 GB/s per core with the JDK's
     * intrinsic (AVX-512 IFMA or AVX-IFMA) against about 3 for AES-GMAC, which copies associated data
     * into arrays of its own; without the intrinsic (a Zen 1 EPYC) Poly1305 0.4 GB/s against 2.0.
     * HMAC-SHA256 is slower than both everywhere measured.
     */
    enum Algorithm {
        /** Poly1305, by way of ChaCha20-Poly1305 (RFC 8439). */
        POLY1305((byte) 1, "Poly1305", "ChaCha20-Poly1305", "ChaCha20", 32),
        /** AES-GMAC, by way of AES-128-GCM (NIST SP 800-38D). */
        GMAC((byte) 2, "AES-GMAC", "AES/GCM/NoPadding", "AES", 16);

        final byte id;
        final String label;
        final String transformation;
        final String keyAlgorithm;
        final int keyBytes;

        Algorithm(byte id, String label, String transformation, String keyAlgorithm, int keyBytes) {
            this.id = id;
            this.label = label;
            this.transformation = transformation;
            this.keyAlgorithm = keyAlgorithm;
            this.keyBytes = keyBytes;
        }

        static Optional<Algorithm> of(byte id) {
            for (Algorithm algorithm : values()) {
                if (algorithm.id == id) {
                    return Optional.of(algorithm);
                }
            }
            return Optional.empty();
        }

        /** The fastest on this machine's CPU, as {@link #fastestWith} tells from the flags Linux lists for it. */
        static Algorithm fastestHere() {
            return Fastest.HERE;
        }

        /**
         * AES-GMAC where HotSpot has its AES-GCM intrinsics (AES-NI, carry-less multiply) but not its
         * Poly1305 one (AVX-512 IFMA with VL and BW, or AVX-IFMA); Poly1305 otherwise, and where the
         * flags are not known (another OS, another architecture's names). HotSpot's own flags for them are
         * diagnostic, which the JVM does not show to a program.
         */
        static Algorithm fastestWith(Set<String> cpuFlags) {
            boolean poly1305Intrinsic = cpuFlags.contains("avx512ifma") && cpuFlags.contains("avx512vl") && cpuFlags.contains("avx512bw")
                    || cpuFlags.contains("avx_ifma");
            boolean gcmIntrinsics = cpuFlags.contains("aes") && cpuFlags.contains("pclmulqdq");
            return gcmIntrinsics && !poly1305Intrinsic ? GMAC : POLY1305;
        }

        private static final class Fastest {
            static final Algorithm HERE = fastestWith(cpuFlags());

            /** The first CPU's feature flags from {@code /proc/cpuinfo}; none where there is no such file or line. */
            private static Set<String> cpuFlags() {
                try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
                    return lines.filter(line -> line.startsWith("flags")).findFirst()
                            .map(line -> Arrays.stream(line.substring(line.indexOf(':') + 1).trim().split("\\s+")).collect(Collectors.toSet()))
                            .orElse(Set.of());
                } catch (IOException | UncheckedIOException e) {
                    return Set.of();
                }
            }
        }
    }

    private final Algorithm algorithm;
    private final SecretKey key;
    private final Cipher cipher;
    private final byte[] stage = new byte[STAGE_BYTES];
    private final byte[] nonce = new byte[NONCE_BYTES];
    private long sequence;

    /** {@code key}: a key of {@code algorithm}'s used for this direction alone. */
    ChunkTags(Algorithm algorithm, SecretKey key) throws GeneralSecurityException {
        this.algorithm = algorithm;
        this.key = key;
        this.cipher = Cipher.getInstance(algorithm.transformation);
    }

    Algorithm algorithm() {
        return algorithm;
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

    private AlgorithmParameterSpec nextNonce() {
        long n = sequence++;
        for (int i = 0; i < Long.BYTES; i++) {
            nonce[NONCE_BYTES - 1 - i] = (byte) (n >>> (8 * i));
        }
        return algorithm == Algorithm.GMAC ? new GCMParameterSpec(TAG_BYTES * 8, nonce) : new IvParameterSpec(nonce);
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

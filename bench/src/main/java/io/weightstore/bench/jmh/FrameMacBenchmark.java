package io.weightstore.bench.jmh;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What authenticating one data-plane chunk costs with each JDK MAC that could tag it, the chunk
 * off-heap as it lands from the socket: AES-GMAC (AES-GCM with the chunk as AAD only), HMAC-SHA256,
 * and Poly1305 (ChaCha20-Poly1305 with the chunk as AAD only), beside encrypting the chunk with
 * AES-128-GCM and ChaCha20-Poly1305, what TLS pays for the same bytes. Each tag gets a fresh nonce, as
 * a transport would. Throughput in bytes: ops/s times the chunk.
 *
 * <p>The intrinsics apply only once C2 has compiled the JDK's loops; before that AES-GCM runs at tens
 * of MB/s. On a busy machine that can take several seconds, so give it warm-up iterations enough to
 * see the scores settle.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class FrameMacBenchmark {
    /** Staging for the MACs whose JDK intrinsics take arrays only: small enough to stay in L1. */
    private static final int STAGE = 16 << 10;
    private static final int TAG_BITS = 128;

    /** The MAC transport's chunk, and a smaller one that shows what each tag costs to start. */
    @Param({"65536", "262144"})
    int chunk;

    private Arena arena;
    private ByteBuffer payload;
    private byte[] stage;
    private byte[] heapPayload;
    private byte[] encrypted;
    private SecretKeySpec aesKey;
    private SecretKeySpec chachaKey;
    private Cipher gcm;
    private Cipher chacha;
    private Mac hmac;
    private final byte[] nonce = new byte[12];
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() throws GeneralSecurityException {
        arena = Arena.ofConfined();
        MemorySegment data = arena.allocate(chunk, 64);
        SplittableRandom random = new SplittableRandom(3);
        for (long i = 0; i < chunk; i += 8) {
            data.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
        payload = data.asByteBuffer();
        heapPayload = new byte[chunk];
        payload.duplicate().get(heapPayload);
        stage = new byte[STAGE];
        encrypted = new byte[chunk + TAG_BITS / 8];
        byte[] key = new byte[32];
        random.nextBytes(key);
        aesKey = new SecretKeySpec(key, 0, 16, "AES");
        chachaKey = new SecretKeySpec(key, "ChaCha20");
        gcm = Cipher.getInstance("AES/GCM/NoPadding");
        chacha = Cipher.getInstance("ChaCha20-Poly1305");
        hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(key, "HmacSHA256"));
    }

    @TearDown(Level.Trial)
    public void free() {
        arena.close();
    }

    private byte[] nextNonce() {
        sequence++;
        for (int i = 0; i < 8; i++) {
            nonce[4 + i] = (byte) (sequence >>> (56 - 8 * i));
        }
        return nonce;
    }

    /** AES-GMAC, handing the JDK the off-heap chunk (it copies it into an array of its own). */
    @Benchmark
    public byte[] gmac() throws GeneralSecurityException {
        gcm.init(Cipher.ENCRYPT_MODE, aesKey, new GCMParameterSpec(TAG_BITS, nextNonce()));
        gcm.updateAAD(payload.duplicate());
        return gcm.doFinal();
    }

    @Benchmark
    public byte[] hmacSha256() {
        hmac.update(payload.duplicate());
        return hmac.doFinal();
    }

    /** Poly1305 keyed per chunk by ChaCha20, the chunk staged through a small array for the intrinsic. */
    @Benchmark
    public byte[] poly1305() throws GeneralSecurityException {
        chacha.init(Cipher.ENCRYPT_MODE, chachaKey, new IvParameterSpec(nextNonce()));
        ByteBuffer in = payload.duplicate();
        while (in.hasRemaining()) {
            int n = Math.min(STAGE, in.remaining());
            in.get(stage, 0, n);
            chacha.updateAAD(stage, 0, n);
        }
        return chacha.doFinal();
    }

    /** What TLS with AES-128-GCM pays per byte to encrypt (heap to heap, the intrinsic's best case). */
    @Benchmark
    public int aes128GcmEncrypt() throws GeneralSecurityException {
        gcm.init(Cipher.ENCRYPT_MODE, aesKey, new GCMParameterSpec(TAG_BITS, nextNonce()));
        return gcm.doFinal(heapPayload, 0, chunk, encrypted, 0);
    }

    @Benchmark
    public int chacha20Poly1305Encrypt() throws GeneralSecurityException {
        chacha.init(Cipher.ENCRYPT_MODE, chachaKey, new IvParameterSpec(nextNonce()));
        return chacha.doFinal(heapPayload, 0, chunk, encrypted, 0);
    }
}

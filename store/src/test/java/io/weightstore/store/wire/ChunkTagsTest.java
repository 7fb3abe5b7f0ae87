package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.wire.ChunkTags.Algorithm;
import java.nio.ByteBuffer;
import java.util.Set;
import javax.crypto.AEADBadTagException;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Which MAC a node proposes on which CPU, and what a tag of either pins. */
class ChunkTagsTest {
    @Test
    void aCpuWithAesButNoPoly1305IntrinsicTagsWithGmac() {
        // A Zen 1 EPYC: Poly1305 0.4 GB/s a core against 2.0 for AES-GMAC (FrameMacBenchmark).
        assertThat(Algorithm.fastestWith(Set.of("sse4_2", "avx2", "aes", "pclmulqdq"))).isEqualTo(Algorithm.GMAC);
    }

    @Test
    void aCpuWithThePoly1305IntrinsicTagsWithPoly1305() {
        assertThat(Algorithm.fastestWith(Set.of("aes", "pclmulqdq", "avx512f", "avx512ifma", "avx512vl", "avx512bw")))
                .isEqualTo(Algorithm.POLY1305);
        assertThat(Algorithm.fastestWith(Set.of("aes", "pclmulqdq", "avx_ifma"))).isEqualTo(Algorithm.POLY1305);
    }

    @Test
    void unknownFlagsKeepPoly1305() {
        assertThat(Algorithm.fastestWith(Set.of())).isEqualTo(Algorithm.POLY1305);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aTagPassesOnlyForTheSameWordBytesAndPlaceInTheStream(Algorithm algorithm) throws Exception {
        SecretKeySpec key = new SecretKeySpec(new byte[algorithm.keyBytes], algorithm.keyAlgorithm);
        ChunkTags sender = new ChunkTags(algorithm, key);
        ByteBuffer payload = ByteBuffer.allocateDirect(100_000);
        for (int i = 0; i < payload.capacity(); i++) {
            payload.put(i, (byte) i);
        }
        byte[] first = new byte[ChunkTags.TAG_BYTES];
        byte[] second = new byte[ChunkTags.TAG_BYTES];
        sender.sign(payload.capacity(), payload, ByteBuffer.wrap(first));
        sender.sign(payload.capacity(), payload, ByteBuffer.wrap(second));
        assertThat(second).as("the next chunk of the same bytes, tagged at its own place").isNotEqualTo(first);

        ChunkTags inOrder = new ChunkTags(algorithm, key);
        inOrder.verify(payload.capacity(), payload, first);
        inOrder.verify(payload.capacity(), payload, second);

        assertThatThrownBy(() -> new ChunkTags(algorithm, key).verify(payload.capacity(), payload, second))
                .as("the second chunk's tag in first place").isInstanceOf(AEADBadTagException.class);
        assertThatThrownBy(() -> new ChunkTags(algorithm, key).verify(payload.capacity() - 1, payload, first))
                .as("another header word").isInstanceOf(AEADBadTagException.class);
        payload.put(77, (byte) 0);
        assertThatThrownBy(() -> new ChunkTags(algorithm, key).verify(payload.capacity(), payload, first))
                .as("one byte changed").isInstanceOf(AEADBadTagException.class);
    }
}

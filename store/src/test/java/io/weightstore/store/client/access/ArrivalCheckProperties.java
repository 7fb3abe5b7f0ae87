package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Checking blocks as bytes arrive must not depend on how the socket cut the payload: any cut gives
 * the verdict a whole-payload check gives, and a flipped byte is found exactly when a checked
 * block holds it.
 */
class ArrivalCheckProperties {
    private static final int PAYLOAD = 40_000;

    /** Blocks of 3000 bytes every 5000, so some payload bytes lie outside any block (checked by the node). */
    private static List<ArrivalCheck.Block> blocks(byte[] payload) {
        List<ArrivalCheck.Block> blocks = new ArrayList<>();
        for (int at = 1000; at + 3000 <= payload.length; at += 5000) {
            int crc = Checksums.crc32c(MemorySegment.ofArray(payload).asSlice(at, 3000));
            blocks.add(0, new ArrivalCheck.Block(at, 3000, crc, 1_000_000 + at));
        }
        return blocks;
    }

    private static byte[] payload(long seed) {
        byte[] payload = new byte[PAYLOAD];
        new SplittableRandom(seed).nextBytes(payload);
        return payload;
    }

    /** Feeds {@code received} in pieces whose lengths come from {@code seed}, some of them empty. */
    private static void arrive(ArrivalCheck check, byte[] received, long seed, int maxPiece) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment all = MemorySegment.ofArray(received);
        for (int at = 0; at < received.length; ) {
            int piece = Math.min(received.length - at, random.nextInt(maxPiece + 1));
            check.arrived(at, all.asSlice(at, piece));
            at += piece;
        }
    }

    @Property(tries = 200)
    void intactPayloadPassesWhateverTheCuts(@ForAll long seed, @ForAll @IntRange(min = 1, max = 20_000) int maxPiece)
            throws StoreException {
        byte[] payload = payload(seed);
        ArrivalCheck check = new ArrivalCheck("node-a", blocks(payload));
        arrive(check, payload, seed, maxPiece);
        check.throwIfCorrupt();
    }

    @Property(tries = 300)
    void flippedByteIsFoundExactlyWhenACheckedBlockHoldsIt(@ForAll long seed, @ForAll @IntRange(max = PAYLOAD - 1) int flipAt,
            @ForAll @IntRange(min = 1, max = 20_000) int maxPiece) {
        byte[] payload = payload(seed);
        List<ArrivalCheck.Block> blocks = blocks(payload);
        byte[] received = payload.clone();
        received[flipAt] ^= 0x10;
        ArrivalCheck check = new ArrivalCheck("node-a", blocks);
        arrive(check, received, seed, maxPiece);

        int holder = (flipAt - 1000) / 5000;
        boolean inBlock = flipAt >= 1000 && (flipAt - 1000) % 5000 < 3000 && 1000 + holder * 5000 + 3000 <= PAYLOAD;
        if (inBlock) {
            assertThatThrownBy(check::throwIfCorrupt).isInstanceOf(StoreException.class)
                    .hasMessageContaining("checksum mismatch from node node-a at pool offset " + (1_000_000 + 1000 + holder * 5000));
        } else {
            assertThatCode(check::throwIfCorrupt).doesNotThrowAnyException();
        }
    }

    @Example
    void payloadCutShortOfABlockIsAnError() {
        byte[] payload = payload(7);
        ArrivalCheck check = new ArrivalCheck("node-a", blocks(payload));
        check.arrived(0, MemorySegment.ofArray(payload).asSlice(0, 2000));
        assertThatThrownBy(check::throwIfCorrupt).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("payload ended before block 0");
    }
}

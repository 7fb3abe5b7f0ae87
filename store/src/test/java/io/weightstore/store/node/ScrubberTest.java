package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.ScrubTask;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.metrics.NodeMetrics;
import io.weightstore.store.pool.PoolFile;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's background check of its copies, over a real pool file. */
class ScrubberTest {
    private static final int BLOCK = 1 << 20;
    private static final int BLOCKS = 4;

    @TempDir
    Path tmp;

    @Test
    void aCopyWhosePagesCannotBeReadIsReportedBadRatherThanEndingTheNode() throws Exception {
        Path path = tmp.resolve("pool");
        try (PoolFile pool = PoolFile.openOrCreate(path, 8L * BLOCK, "n1")) {
            byte[] bytes = new byte[BLOCKS * BLOCK];
            new Random(1).nextBytes(bytes);
            int[] crcs = new int[BLOCKS];
            for (int i = 0; i < BLOCKS; i++) {
                crcs[i] = Checksums.crc32c(MemorySegment.ofArray(bytes).asSlice((long) i * BLOCK, BLOCK));
            }
            try (FileChannel file = FileChannel.open(path, StandardOpenOption.WRITE)) {
                file.write(ByteBuffer.wrap(bytes), PoolFile.DATA_START);
                // The file now ends in block 2 of the copy: the pages after have none the kernel can give, as a failing device.
                file.truncate(PoolFile.DATA_START + 2L * BLOCK);
            }
            VerifiedBlocks verified = new VerifiedBlocks(pool.capacity(), Duration.ofSeconds(10), System::nanoTime);
            try (Scrubber scrubber = new Scrubber(pool, 1L << 30, new NodeCounters(), new NodeMetrics(), verified)) {
                scrubber.accept(List.of(new ScrubTask("obj", Instant.EPOCH, 0, 0, (long) BLOCKS * BLOCK, BLOCK, BlockCrcs.of(crcs))));
                List<ScrubFinding> found = new ArrayList<>();
                for (long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos(); found.isEmpty() && System.nanoTime() < deadline; ) {
                    found.addAll(scrubber.takeFindings());
                    Thread.sleep(20);
                }
                assertThat(found).singleElement().satisfies(finding -> {
                    assertThat(finding.key()).isEqualTo("obj");
                    assertThat(finding.problem()).contains("block 2 at pool offset " + 2L * BLOCK + " cannot be read");
                });
            }
        }
    }

    /**
     * A block hashed while a rewrite in place lands on it (the master ordered the rewrite after it handed out this check):
     * the scrubber waits for the write to end and hashes it again, rather than report the new copy bad.
     */
    @Test
    void aBlockFoundBadWhileARewriteLandsOnItIsHashedAgainOnceTheWriteEnds() throws Exception {
        Path path = tmp.resolve("pool");
        try (PoolFile pool = PoolFile.openOrCreate(path, 8L * BLOCK, "n1")) {
            byte[] good = new byte[2 * BLOCK];
            new Random(2).nextBytes(good);
            int[] crcs = {Checksums.crc32c(MemorySegment.ofArray(good).asSlice(0, BLOCK)),
                Checksums.crc32c(MemorySegment.ofArray(good).asSlice(BLOCK, BLOCK))};
            byte[] rotten = good.clone();
            rotten[10] ^= 1;
            rotten[BLOCK + 10] ^= 1;
            try (FileChannel file = FileChannel.open(path, StandardOpenOption.WRITE)) {
                file.write(ByteBuffer.wrap(rotten), PoolFile.DATA_START);
            }
            VerifiedBlocks verified = new VerifiedBlocks(pool.capacity(), Duration.ofSeconds(10), System::nanoTime);
            try (Scrubber scrubber = new Scrubber(pool, 1L << 30, new NodeCounters(), new NodeMetrics(), verified)) {
                VerifiedBlocks.Writing rewrite = verified.writing(0, BLOCK);
                scrubber.accept(List.of(new ScrubTask("rewritten", Instant.EPOCH, 0, 0, BLOCK, BLOCK, BlockCrcs.of(crcs[0]))));
                Thread.sleep(300);
                try (FileChannel file = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    file.write(ByteBuffer.wrap(good, 0, BLOCK), PoolFile.DATA_START);
                }
                rewrite.close();
                // Checked in order after the first: once its finding comes, the first block's check is over.
                scrubber.accept(List.of(new ScrubTask("rotten", Instant.EPOCH, 0, BLOCK, BLOCK, BLOCK, BlockCrcs.of(crcs[1]))));
                List<ScrubFinding> found = new ArrayList<>();
                for (long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                        found.stream().noneMatch(f -> f.key().equals("rotten")) && System.nanoTime() < deadline; ) {
                    found.addAll(scrubber.takeFindings());
                    Thread.sleep(20);
                }
                assertThat(found).extracting(ScrubFinding::key).containsExactly("rotten");
            }
        }
    }
}

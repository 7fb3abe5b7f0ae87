package io.weightstore.bench;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.MappedNodeAccess;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.weights.FileDigests;
import io.weightstore.weights.Sha256;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;

/**
 * What each step of an import costs one core, over the same files: the work a core must do per
 * byte, which on a machine with few cores bounds the import below the ceilings however well the
 * steps overlap. An import runs {@link #digests} (SHA-256 and CRC table in one walk), the block
 * CRC32C of the put, and the write into the pool, whose pages are new; {@link #sha256} beside
 * {@link #digests} shows what the CRC tables add.
 */
public final class ImportStageCosts {
    private final CheckpointDirectory checkpoint;
    private final Path scratch;
    /** What a put reads, checks and writes at a time. */
    private static final long PIECE = 4 << 20;
    /** What the reading steps read into. */
    private final ByteBuffer pieceBuffer = ByteBuffer.allocateDirect((int) PIECE);
    /** What the write step writes: a put's piece in this process's memory, as the block CRC32C before the write leaves it. */
    private final MemorySegment written = Arena.ofAuto().allocate(PIECE, 4096).fill((byte) 1);

    /** {@code scratch} is a directory on the file system the store's pool is on, for the write's target. */
    public ImportStageCosts(CheckpointDirectory checkpoint, Path scratch) {
        this.checkpoint = checkpoint;
        this.scratch = scratch;
    }

    public Measurement.Timed sha256(long bytes) {
        return stage("SHA-256, 1 core", "the JDK's, over 4 MiB reads", bytes, (file, channel) -> {
            Sha256 sha = new Sha256();
            inPieces(channel, file.size(), sha::update);
            sha.hex();
        });
    }

    public Measurement.Timed digests(long bytes) {
        return stage("SHA-256 + CRC table, 1 core", "one walk per file, 4 MiB reads, as the import does", bytes,
                (file, channel) -> FileDigests.of(channel, file.size(), file.header()));
    }

    public Measurement.Timed blockCrcs(long bytes) {
        return stage("block CRC32C, 1 core", "4 MiB reads, 1 MiB blocks, as a put seals them", bytes,
                (file, channel) -> inPieces(channel, file.size(),
                        piece -> Checksums.blockCrcs(piece, Checksums.DEFAULT_BLOCK_SIZE)));
    }

    /**
     * The checkpoint's size written into one fresh pool, as an import fills its store's: a pool per file, each
     * deleted before the next, wrote into pages the last one had just freed, which on this VM cost a tenth of
     * pages new to the pool (a {@code perf} profile of an import: its put threads copying at about 1 GB/s per core,
     * the per-file step at 5).
     */
    public Measurement.Timed writeIntoFreshPool(long bytes) {
        return new Measurement.Timed("write into a fresh pool, 1 core", "the checkpoint's size in 4 MiB pieces from memory, as"
                + " the import's puts write them", bytes, () -> writeOnePool(bytes));
    }

    /** {@code size} bytes written into a pool of their own, by the same-host path a put into the embedded store takes. */
    private void writeOnePool(long size) throws IOException {
        Path path = scratch.resolve("write-target.pool");
        try (PoolFile pool = PoolFile.openOrCreate(path, size); MappedNodeAccess access = new MappedNodeAccess(pool)) {
            for (long done = 0; done < size; done += PIECE) {
                access.write(done, written.asSlice(0, Math.min(PIECE, size - done)), Ticket.none());
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private interface Step {
        void run(CheckpointFile file, FileChannel channel) throws IOException;
    }

    private Measurement.Timed stage(String path, String detail, long bytes, Step step) {
        return new Measurement.Timed(path, detail, bytes, () -> {
            for (CheckpointFile file : checkpoint.files()) {
                if (file.size() == 0) {
                    continue;
                }
                try (FileChannel channel = FileChannel.open(file.location(), StandardOpenOption.READ)) {
                    step.run(file, channel);
                }
            }
        });
    }

    /** The file's bytes, 4 MiB at a time read into one reused buffer, as the import's walk and its put read them. */
    private void inPieces(FileChannel channel, long size, Consumer<MemorySegment> piece) throws IOException {
        ImportCeilings.inPieces(channel, 0, size, pieceBuffer, piece);
    }

    /** The steps an import cannot avoid, each a core's time per byte: the sum bounds an import on {@code cores} cores. */
    public static double bestImportGbPerSecond(List<Measurement> importSteps, int cores) {
        double coreSecondsPerGb = importSteps.stream().mapToDouble(m -> 1 / m.median()).sum();
        return cores / coreSecondsPerGb;
    }
}

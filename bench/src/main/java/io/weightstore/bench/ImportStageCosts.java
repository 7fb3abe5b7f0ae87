package io.weightstore.bench;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.MappedNodeAccess;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.weights.FileDigests;
import io.weightstore.weights.Sha256;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

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
    /**
     * What the write step writes: a put's slice already in this process's memory, as the block CRC32C
     * that runs before the write leaves it. Written from the files' fresh mappings instead, the write
     * would also pay for mapping in every source page, which in an import the steps before it paid.
     */
    private final MemorySegment slice = Arena.ofAuto().allocate(MasterConfig.DEFAULT_SLICE_SIZE, 4096).fill((byte) 1);

    /** {@code scratch} is a directory on the file system the store's pool is on, for the write's target. */
    public ImportStageCosts(CheckpointDirectory checkpoint, Path scratch) {
        this.checkpoint = checkpoint;
        this.scratch = scratch;
    }

    public Measurement.Timed sha256(long bytes) {
        return stage("SHA-256, 1 core", "the JDK's, over mapped files", bytes, (file, data) -> Sha256.of(data));
    }

    public Measurement.Timed digests(long bytes) {
        return stage("SHA-256 + CRC table, 1 core", "one walk per file, as the import does", bytes,
                (file, data) -> FileDigests.of(data, file.header()));
    }

    public Measurement.Timed blockCrcs(long bytes) {
        return stage("block CRC32C, 1 core", "1 MiB blocks, as a put seals them", bytes,
                (file, data) -> Checksums.blockCrcs(data, Checksums.DEFAULT_BLOCK_SIZE));
    }

    public Measurement.Timed writeIntoFreshPool(long bytes) {
        return stage("write into a fresh pool, 1 core", "64 MiB slices from memory, as a put writes them", bytes,
                this::writeIntoFreshPool);
    }

    /** Each file's size written into a pool of its own, by the same-host path a put into the embedded store takes. */
    private void writeIntoFreshPool(CheckpointFile file, MemorySegment data) throws IOException {
        Path path = scratch.resolve("write-target.pool");
        try (PoolFile pool = PoolFile.openOrCreate(path, data.byteSize()); MappedNodeAccess access = new MappedNodeAccess(pool)) {
            for (long done = 0; done < data.byteSize(); done += slice.byteSize()) {
                access.write(done, slice.asSlice(0, Math.min(slice.byteSize(), data.byteSize() - done)), Ticket.none());
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private interface Step {
        void run(CheckpointFile file, MemorySegment data) throws IOException;
    }

    private Measurement.Timed stage(String path, String detail, long bytes, Step step) {
        return new Measurement.Timed(path, detail, bytes, () -> {
            for (CheckpointFile file : checkpoint.files()) {
                if (file.size() == 0) {
                    continue;
                }
                try (Arena arena = Arena.ofConfined();
                        FileChannel channel = FileChannel.open(checkpoint.root().resolve(file.path()), StandardOpenOption.READ)) {
                    step.run(file, channel.map(FileChannel.MapMode.READ_ONLY, 0, file.size(), arena));
                }
            }
        });
    }

    /** The steps an import cannot avoid, each a core's time per byte: the sum bounds an import on {@code cores} cores. */
    public static double bestImportGbPerSecond(List<Measurement> importSteps, int cores) {
        double coreSecondsPerGb = importSteps.stream().mapToDouble(m -> 1 / m.median()).sum();
        return cores / coreSecondsPerGb;
    }
}

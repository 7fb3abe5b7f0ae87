package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.pool.PositionalReads;
import io.weightstore.weights.checks.TensorCrcCalculator;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.zip.Checksum;

/**
 * What an import computes from a file's own bytes: its SHA-256 and, for a safetensors file, its
 * tensor CRC table, in one walk from the first byte to the last on one thread. The walk takes a few
 * MiB at a time, hashes them and takes their CRCs at once, so the CRCs read bytes the hash has just
 * brought into the cache instead of reading the whole file from memory a second time, and a file
 * costs one thread instead of two: an import keeps its other cores for the other files.
 *
 * @param tensorCrcs the table, or empty for a file that is not safetensors
 */
public record FileDigests(String sha256, Optional<TensorCrcTable> tensorCrcs) {
    public FileDigests {
        if (sha256 == null || sha256.length() != 64) {
            throw new IllegalArgumentException("a SHA-256 is 64 hex digits: sha256=" + sha256);
        }
    }

    /** The digests of {@code file}, all of it; {@code header} is its safetensors header, if it has one. */
    public static FileDigests of(MemorySegment file, Optional<SafetensorsHeader> header) {
        return of(file.byteSize(), header, file::asSlice);
    }

    /**
     * The digests of the first {@code size} bytes of the file open in {@code channel}, read a few MiB
     * at a time into one buffer, none of it mapped: on a VM, faulting a mapped file's pages in cost a
     * third of hashing them (SHA-256 on one core at 1.04 GB/s over a mapping, 1.56 over reads).
     */
    public static FileDigests of(FileChannel channel, long size, Optional<SafetensorsHeader> header) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            ReadBuffer buffer = new ReadBuffer(channel, arena);
            return of(size, header, buffer::read);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static FileDigests of(long size, Optional<SafetensorsHeader> header, TensorCrcCalculator.Pieces file) {
        Sha256 sha = new Sha256();
        if (header.isEmpty()) {
            file.inBatches(0, size, sha::update);
            return new FileDigests(sha.hex(), Optional.empty());
        }
        // The length prefix and header first, hashed and their own CRC taken from the one read.
        long dataStart = header.get().dataStart();
        Checksum headerCrc = Checksums.newCrc32c();
        file.inBatches(0, dataStart, piece -> {
            sha.update(piece);
            headerCrc.update(piece.asByteBuffer());
        });
        List<TensorInfo> tensors = header.get().tensors();
        // The table keeps the header's order, which its digest depends on. A parsed header lists the tensors in
        // data order, so the walk goes through the file once; in any other order each byte is still hashed once.
        TensorCrcs[] crcs = new TensorCrcs[tensors.size()];
        long hashed = dataStart;
        for (int i = 0; i < crcs.length; i++) {
            TensorInfo tensor = tensors.get(i);
            long start = dataStart + tensor.begin();
            if (start >= hashed) {
                // Padding, or bytes no tensor claims before it: they are hashed all the same.
                file.inBatches(hashed, start - hashed, sha::update);
                crcs[i] = TensorCrcCalculator.compute(tensor, (offset, length) -> {
                    MemorySegment piece = file.next(start + offset, length);
                    sha.update(piece);
                    return piece;
                });
                hashed = start + tensor.byteSize();
            } else {
                // A tensor inside bytes already hashed (an empty one, or one listed out of data order) only needs its CRCs.
                crcs[i] = TensorCrcCalculator.compute(tensor, (offset, length) -> file.next(start + offset, length));
            }
        }
        file.inBatches(hashed, size - hashed, sha::update);
        return new FileDigests(sha.hex(), Optional.of(TensorCrcTable.of(OptionalInt.of((int) headerCrc.getValue()), List.of(crcs))));
    }

    /** One off-heap buffer of {@link TensorCrcCalculator#BYTES_PER_BATCH} the file's ranges are read into, one at a time. */
    private static final class ReadBuffer {
        private final FileChannel channel;
        private final MemorySegment buffer;

        ReadBuffer(FileChannel channel, Arena arena) {
            this.channel = channel;
            this.buffer = arena.allocate(TensorCrcCalculator.BYTES_PER_BATCH, 64);
        }

        MemorySegment read(long offset, long length) {
            if (length > buffer.byteSize()) {
                throw new IllegalArgumentException("a range of the file is read " + buffer.byteSize() + " bytes at most: length="
                        + length);
            }
            MemorySegment range = buffer.asSlice(0, length);
            ByteBuffer into = range.asByteBuffer();
            try {
                if (!PositionalReads.fill(channel, offset, into)) {
                    throw new CheckpointException(CheckpointException.Code.CHANGED, "the file ends at byte "
                            + (offset + into.position()) + ", before the " + (offset + length) + " it had when the import"
                            + " checked it");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return range;
        }
    }
}

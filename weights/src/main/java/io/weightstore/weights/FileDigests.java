package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import io.weightstore.weights.checks.TensorCrcCalculator;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

/**
 * What an import computes from a file's own bytes: its SHA-256 and, for a safetensors file, its
 * tensor CRC table, in one walk from the first byte to the last on one thread. Each tensor is
 * hashed and then its CRCs taken at once, so the CRCs read bytes the hash has just brought into
 * the cache instead of reading the whole file from memory a second time, and a file costs one
 * thread instead of two: an import keeps its other cores for the other files.
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
        if (header.isEmpty()) {
            return new FileDigests(Sha256.of(file), Optional.empty());
        }
        Sha256 sha = new Sha256();
        List<TensorInfo> tensors = header.get().tensors();
        // The table keeps the header's order, which its digest depends on. A parsed header lists the tensors in
        // data order, so the walk goes through the file once; in any other order each byte is still hashed once, in place.
        TensorCrcs[] crcs = new TensorCrcs[tensors.size()];
        long hashed = 0;
        long dataStart = header.get().dataStart();
        for (int i = 0; i < crcs.length; i++) {
            TensorInfo tensor = tensors.get(i);
            long start = dataStart + tensor.begin();
            MemorySegment bytes = file.asSlice(start, tensor.byteSize());
            if (start >= hashed) {
                // Header, padding, or bytes no tensor claims before it: they are hashed all the same.
                sha.update(file.asSlice(hashed, start - hashed)).update(bytes);
                hashed = start + tensor.byteSize();
            }
            // A tensor inside bytes already hashed (an empty one, or one listed out of data order) only needs its CRCs.
            crcs[i] = TensorCrcCalculator.compute(tensor, bytes);
        }
        sha.update(file.asSlice(hashed, file.byteSize() - hashed));
        return new FileDigests(sha.hex(), Optional.of(TensorCrcTable.of(List.of(crcs))));
    }
}

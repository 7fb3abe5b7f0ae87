package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.weightstore.format.FileKind;
import java.util.List;
import java.util.Optional;

/**
 * One file of a checkpoint.
 *
 * @param sha256 hex digest, or null while the file has not been stored yet
 * @param headerLength safetensors header length N, null for other files
 * @param tensorCount safetensors tensor count, null for other files
 * @param checksumDigest SHA-256 of the stored object's block size and block CRC32Cs as the import sealed them
 *     ({@code BlockChecksumDigest}), null on schema 1 and while the file is not stored yet
 * @param tensorCrcsSha256 SHA-256 of the file's tensor CRC table ({@code TensorCrcTable}, stored beside it), for
 *     safetensors files of schema 2; null otherwise
 * @param version the version of the checkpoint whose import stored the file, which says where it lives: a replace
 *     writes what changed beside the version before, so that version stays whole until the new one is READY
 * @param columnLayouts the file's tensors laid out for tensor-parallel ranks ({@link ColumnLayout}), one per world size;
 *     absent when there are none, so that readers before them read every other manifest as before
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ManifestFile(String path, long size, String sha256, FileKind kind, Long headerLength, Integer tensorCount,
        String checksumDigest, String tensorCrcsSha256, int version,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ColumnLayout> columnLayouts) {
    public ManifestFile {
        columnLayouts = columnLayouts == null ? List.of() : List.copyOf(columnLayouts);
    }

    public ManifestFile(String path, long size, String sha256, FileKind kind, Long headerLength, Integer tensorCount) {
        this(path, size, sha256, kind, headerLength, tensorCount, null, null);
    }

    public ManifestFile(String path, long size, String sha256, FileKind kind, Long headerLength, Integer tensorCount,
            String checksumDigest, String tensorCrcsSha256) {
        this(path, size, sha256, kind, headerLength, tensorCount, checksumDigest, tensorCrcsSha256, 0, List.of());
    }

    /**
     * The file as stored by version {@code storedBy}: its SHA-256, the digest of its block checksums, and of its
     * tensor CRC table (null if none); its column layouts as before.
     */
    public ManifestFile stored(int storedBy, String digest, String blockChecksums, String tensorCrcs) {
        return new ManifestFile(path, size, digest, kind, headerLength, tensorCount, blockChecksums, tensorCrcs, storedBy,
                columnLayouts);
    }

    /** The file with {@code layouts} as its column layouts, in place of any it had. */
    public ManifestFile withColumnLayouts(List<ColumnLayout> layouts) {
        return new ManifestFile(path, size, sha256, kind, headerLength, tensorCount, checksumDigest, tensorCrcsSha256, version,
                layouts);
    }

    /** The file's column layout for {@code worldSize} ranks, if it has one. */
    public Optional<ColumnLayout> columnLayout(int worldSize) {
        return columnLayouts.stream().filter(l -> l.worldSize() == worldSize).findFirst();
    }

    @JsonIgnore
    public boolean isWeight() {
        return kind == FileKind.WEIGHT;
    }

    @JsonIgnore
    public boolean isSafetensors() {
        return headerLength != null;
    }
}

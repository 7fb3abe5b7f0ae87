package io.weightstore.weights.loader;

import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.ColumnLayout;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * A file's {@link ColumnLayout} opened for a load, and where each of its tensors' rank-0 shards starts in it.
 *
 * @param reader the layout's object, under a read lease
 */
record OpenedLayout(ObjectReader reader, ColumnLayout layout, Map<String, Long> shardOffsets) {
    OpenedLayout {
        shardOffsets = Map.copyOf(shardOffsets);
    }

    /**
     * Whether {@code failure}, met opening or checking a layout, says the layout is not what the import recorded: it is
     * missing, or its metadata or bytes differ. Anything else (the master out of reach, an interrupt) would fail the
     * file's reads too, and gives no layout up.
     */
    static boolean notAsRecorded(IOException failure) {
        return switch (failure) {
            case CheckpointException e -> e.code() == CheckpointException.Code.CORRUPT;
            case StoreException e -> e.code() == StoreException.Code.NOT_FOUND || e.code() == StoreException.Code.CORRUPT;
            default -> false;
        };
    }

    /**
     * The item that reads {@code read}, rank {@code rank}'s strided column shard of a tensor at {@code location}, as one
     * contiguous range of the layout, checked by the same {@code check}; empty unless the layout holds exactly that shard
     * (a plan that splits the tensor otherwise, or unevenly, reads it from the file).
     */
    Optional<TensorStream.Item> item(CheckpointSource.Location location, Split split, ShardRead read, ShardCheck check, int rank) {
        TensorInfo info = location.info();
        Long offset = shardOffsets.get(info.name());
        if (offset == null || split != Split.DIM1 || read.contiguous()) {
            return Optional.empty();
        }
        long rows = info.shape().getFirst();
        long rowBytes = info.byteSize() / rows;
        long piece = rowBytes / layout.worldSize();
        if (read.count() != rows || read.blockLength() != piece || read.stride() != rowBytes || read.offset() != rank * piece) {
            return Optional.empty();
        }
        long start = rank * layout.rankBytes() + offset;
        // The location's data start is chosen so that the contiguous read below starts where the shard lies in the layout.
        CheckpointSource.Location inLayout = new CheckpointSource.Location(location.file(), reader, start - info.begin(), info,
                location.crcs());
        return Optional.of(new TensorStream.Item(inLayout, split, new ShardRead(0, read.bytes(), read.bytes(), 1, read.shape()),
                check).orStrided(new TensorStream.Item(location, split, read, check)));
    }
}

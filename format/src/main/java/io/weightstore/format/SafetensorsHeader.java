package io.weightstore.format;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A validated safetensors header. Tensors are in data order; together they cover the data section
 * exactly, so {@link #fileLength()} is the length of the file it came from.
 *
 * @param headerLength the JSON header's length N, as stored in the first 8 bytes
 */
public record SafetensorsHeader(long headerLength, Map<String, String> metadata, List<TensorInfo> tensors) {
    /** Size of the little-endian header length that opens every file. */
    public static final int LENGTH_PREFIX_BYTES = Long.BYTES;

    /** Largest header accepted, as in the reference implementation. */
    public static final long MAX_HEADER_LENGTH = 100_000_000L;

    /**
     * Most tensors one file may hold. A header's length alone bounds them at about two million tiny
     * entries, each of which an import keeps with its CRCs (a kilobyte of heap or so); real shards hold
     * hundreds to a few thousand.
     */
    public static final int MAX_TENSORS = 100_000;

    public SafetensorsHeader {
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        tensors = List.copyOf(tensors);
    }

    /** File offset of the first data byte. */
    public long dataStart() {
        return LENGTH_PREFIX_BYTES + headerLength;
    }

    public long dataLength() {
        return tensors.isEmpty() ? 0 : tensors.getLast().end();
    }

    public long fileLength() {
        return dataStart() + dataLength();
    }

    /** Tensors by name, in data order; built on each call, so callers that look up many names keep it. */
    public Map<String, TensorInfo> tensorsByName() {
        Map<String, TensorInfo> byName = new LinkedHashMap<>();
        tensors.forEach(t -> byName.put(t.name(), t));
        return byName;
    }
}

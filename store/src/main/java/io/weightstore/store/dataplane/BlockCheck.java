package io.weightstore.store.dataplane;

/** A checksum block the node must verify before serving a read: {@code length} bytes at {@code offset}. */
public record BlockCheck(long offset, int length, int crc32c) {}

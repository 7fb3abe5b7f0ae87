package io.weightstore.store.wire;

/** A checksum block the node verifies before serving a read: {@code length} bytes at pool offset {@code offset}. */
public record BlockCheck(long offset, int length, int crc32c) {
    public long end() {
        return offset + length;
    }
}

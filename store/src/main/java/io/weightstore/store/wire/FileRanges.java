package io.weightstore.store.wire;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/** File ranges a transport must read itself to send, to encrypt or tag them: mapped rather than copied out. */
final class FileRanges {
    private FileRanges() {}

    /**
     * {@code count} bytes of {@code file} from {@code position}, mapped read-only for as long as
     * {@code arena} lives. A range beyond the end is refused, as mapping it would grow a writable file.
     */
    static MemorySegment map(FileChannel file, long position, long count, Arena arena, String peer) throws IOException {
        long size = file.size();
        if (position < 0 || count < 0 || position > size - count) {
            throw new EOFException("file of " + size + " bytes has no range at " + position + " of " + count
                    + " bytes to send to " + peer);
        }
        return file.map(FileChannel.MapMode.READ_ONLY, position, count, arena);
    }
}

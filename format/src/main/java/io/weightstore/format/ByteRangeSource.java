package io.weightstore.format;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Random access to the bytes of one file, wherever it lives: a local file, or an object in the store
 * read by range. Lets the header reader work on a remote file with two small reads.
 */
public interface ByteRangeSource {
    long length() throws IOException;

    /**
     * Fills {@code dst} from its position to its limit with the bytes at {@code offset}.
     *
     * @throws EOFException when the range runs past {@link #length()}
     */
    void readFully(long offset, ByteBuffer dst) throws IOException;
}

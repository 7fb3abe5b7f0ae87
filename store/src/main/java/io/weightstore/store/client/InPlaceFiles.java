package io.weightstore.store.client;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.pool.StitchedMapping;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An object where it lies in the pool files of this host's nodes, open for reads by position: what
 * {@code sendfile(2)} needs to send its bytes from the page cache to a socket with no copy at all,
 * as a web server sends a file. The pieces are those of a {@link StitchedMapping}, end to end; each
 * pool file is opened once and its header checked to name the pool the master named.
 *
 * <p>Only the holder's read lease keeps the pieces' room from being reused, so the files must be
 * closed, and every transfer from them done, before the lease ends.
 */
public final class InPlaceFiles implements AutoCloseable {
    /** {@code length} bytes of {@code file} from byte {@code position} of the file. */
    public record FileRange(FileChannel file, long position, long length) {}

    private record Placed(FileChannel file, long position, long objectOffset, long length) {}

    private final List<StitchedMapping.Piece> copies;
    private final List<Placed> pieces;
    private final List<FileChannel> files;
    private final long size;

    private InPlaceFiles(List<StitchedMapping.Piece> copies, List<Placed> pieces, List<FileChannel> files, long size) {
        this.copies = copies;
        this.pieces = pieces;
        this.files = files;
        this.size = size;
    }

    /** Opens the pool files of {@code pieces}, which hold an object end to end. */
    public static InPlaceFiles open(List<StitchedMapping.Piece> pieces) throws StoreException {
        Map<Path, FileChannel> opened = new HashMap<>();
        List<Placed> placed = new ArrayList<>();
        try {
            long at = 0;
            for (StitchedMapping.Piece piece : pieces) {
                FileChannel file = opened.get(piece.file());
                if (file == null) {
                    file = openChecked(piece);
                    opened.put(piece.file(), file);
                }
                placed.add(new Placed(file, PoolFile.DATA_START + piece.offset(), at, piece.length()));
                at += piece.length();
            }
            return new InPlaceFiles(List.copyOf(pieces), List.copyOf(placed), List.copyOf(opened.values()), at);
        } catch (StoreException | RuntimeException e) {
            opened.values().forEach(InPlaceFiles::closeQuietly);
            throw e;
        }
    }

    public long size() {
        return size;
    }

    /** The copies these files hold, end to end: what a check of them went by. */
    public List<StitchedMapping.Piece> copies() {
        return copies;
    }

    /** Where the object's bytes {@code [offset, offset + length)} lie, in order. */
    public List<FileRange> ranges(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("offset=" + offset + " length=" + length + " is not within the object's " + size
                    + " bytes");
        }
        List<FileRange> ranges = new ArrayList<>();
        long end = offset + length;
        for (Placed piece : pieces) {
            long from = Math.max(offset, piece.objectOffset());
            long to = Math.min(end, piece.objectOffset() + piece.length());
            if (from < to) {
                ranges.add(new FileRange(piece.file(), piece.position() + (from - piece.objectOffset()), to - from));
            }
        }
        return ranges;
    }

    @Override
    public void close() {
        files.forEach(InPlaceFiles::closeQuietly);
    }

    private static FileChannel openChecked(StitchedMapping.Piece piece) throws StoreException {
        FileChannel file;
        try {
            file = FileChannel.open(piece.file(), StandardOpenOption.READ);
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot open pool " + piece.file() + ": " + e.getMessage(), e);
        }
        try {
            PoolFile.requireIdentity(file, piece.file(), piece.pool());
            return file;
        } catch (IOException | RuntimeException e) {
            closeQuietly(file);
            if (e instanceof StoreException store) {
                throw store;
            }
            throw new StoreException(StoreException.Code.IO, "cannot read the header of pool " + piece.file() + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException ignored) {
            // Read-only: nothing was written that a failed close could lose.
        }
    }
}

package io.weightstore.gateway.transfer;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import io.weightstore.store.client.InPlaceFiles;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A range of a pool file as Netty sends a file: with {@code FileChannel.transferTo}, which is
 * {@code sendfile(2)} to a socket, so the page cache's pages go to the socket with no copy. Unlike
 * Netty's own file region it leaves the file open when released: the file belongs to the read lease
 * that every GET of the object shares.
 */
final class FileRangeRegion extends AbstractReferenceCounted implements FileRegion {
    private final InPlaceFiles.FileRange range;
    private long transferred;

    FileRangeRegion(InPlaceFiles.FileRange range) {
        this.range = range;
    }

    @Override
    public long position() {
        return range.position();
    }

    @Override
    public long count() {
        return range.length();
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long left = range.length() - position;
        if (position < 0 || left < 0) {
            throw new IllegalArgumentException("position=" + position + " is not within the region's " + range.length() + " bytes");
        }
        if (left == 0) {
            return 0;
        }
        long sent = range.file().transferTo(range.position() + position, left, target);
        if (sent == 0 && range.file().size() < range.position() + range.length()) {
            // transferTo sends nothing, rather than failing, past the end of a file: a pool cut short would spin for ever.
            throw new EOFException("the pool file ends at " + range.file().size() + ", before the region's end at "
                    + (range.position() + range.length()));
        }
        transferred += sent;
        return sent;
    }

    @Override
    public FileRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public FileRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public FileRegion touch() {
        return this;
    }

    @Override
    public FileRegion touch(Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        // The file is the lease's, closed when the lease ends.
    }
}

package io.weightstore.store.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a pool's writers take turns: pieces that end on the file's 2 MiB grid, which a file system caches as whole folios. */
class PoolFileWritesTest {
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    /** One pwrite: where in the file, and how many bytes. */
    private record Piece(long position, long length) {}

    @Test
    void aWriteGoesInPiecesThatEndOnTheFilesTwoMebibyteGrid() throws IOException {
        try (PoolFile pool = PoolFile.openOrCreate(dir.resolve("pool"), 16 * MIB); Arena arena = Arena.ofConfined()) {
            RecordingChannel file = new RecordingChannel(pool.channel());
            // 5 MiB from 1 MiB before the grid line at 2 MiB of the file: a piece to the line, two whole ones, the rest.
            long offset = MIB - PoolFile.DATA_START;
            MemorySegment bytes = arena.allocate(5 * MIB);
            bytes.fill((byte) 7);

            pool.writeInTurn(file, offset, bytes);

            assertThat(file.pieces).containsExactly(new Piece(MIB, MIB), new Piece(2 * MIB, 2 * MIB), new Piece(4 * MIB, 2 * MIB));
        }
    }

    @Test
    void aSliceOnTheGridIsWrittenInWholeTwoMebibytePiecesWithEveryByteInPlace() throws IOException {
        try (PoolFile pool = PoolFile.openOrCreate(dir.resolve("pool"), 16 * MIB); Arena arena = Arena.ofConfined()) {
            RecordingChannel file = new RecordingChannel(pool.channel());
            long offset = 2 * MIB - PoolFile.DATA_START;
            MemorySegment bytes = arena.allocate(5 * MIB);
            for (long i = 0; i < bytes.byteSize(); i++) {
                bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 / 4096));
            }

            pool.writeInTurn(file, offset, bytes);

            assertThat(file.pieces).containsExactly(new Piece(2 * MIB, 2 * MIB), new Piece(4 * MIB, 2 * MIB), new Piece(6 * MIB, MIB));
            assertThat(pool.data().asSlice(offset, bytes.byteSize()).mismatch(bytes)).isEqualTo(-1);
        }
    }

    /** The pool's channel, recording each positional write; the rest is not used by a pool's writers. */
    private static final class RecordingChannel extends FileChannel {
        private final FileChannel file;
        private final List<Piece> pieces = new ArrayList<>();
        /** The buffer of the piece being written: a write the kernel took in part goes on with the same one. */
        private ByteBuffer current;

        RecordingChannel(FileChannel file) {
            this.file = file;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (src != current) {
                pieces.add(new Piece(position, 0));
                current = src;
            }
            int written = file.write(src, position);
            Piece piece = pieces.removeLast();
            pieces.add(new Piece(piece.position(), piece.length() + written));
            return written;
        }

        @Override
        public int read(ByteBuffer dst) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long position() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileChannel position(long newPosition) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public FileChannel truncate(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void force(boolean metaData) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(ByteBuffer dst, long position) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void implCloseChannel() {
            // The pool's channel is the pool's to close.
        }
    }
}

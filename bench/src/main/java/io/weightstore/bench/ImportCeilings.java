package io.weightstore.bench;

import io.weightstore.store.pool.PositionalReads;
import io.weightstore.weights.Sha256;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * The two limits of an import on this machine: reading the source files out of the page cache, and
 * SHA-256 over them, each on every core at once. Every file is cut into one range per thread, so
 * the ceilings are the machine's and do not depend on how many files the checkpoint has; an import,
 * whose SHA-256 of a file is one sequential chain, can only reach them with at least as many large
 * files as cores.
 */
public final class ImportCeilings implements AutoCloseable {
    private static final int READ_BUFFER = 1 << 20;

    private final List<Path> files;
    private final int threads;
    private final ExecutorService pool;

    public ImportCeilings(List<Path> files, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1: threads=" + threads);
        }
        this.files = List.copyOf(files);
        this.threads = threads;
        this.pool = Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon().name("ceiling-", 0).factory());
    }

    public int threads() {
        return threads;
    }

    /** FileChannel reads of 1 MiB into one reused direct buffer per thread: the least any reader of the files pays. */
    public Measurement.Timed sourceRead(long bytes) {
        return new Measurement.Timed("source read", "FileChannel.read, page cache, " + threads + " threads", bytes,
                () -> onEveryRange((channel, segment, from, length) -> read(channel, from, length)));
    }

    /** The JDK's SHA-256 (its intrinsic) over the mapped files, one digest per range. */
    public Measurement.Timed sha256Mapped(long bytes) {
        return new Measurement.Timed("SHA-256 over mappings", "JDK intrinsic over mapped files, " + threads + " threads", bytes,
                () -> onEveryRange((channel, segment, from, length) -> Sha256.of(segment.asSlice(from, length))));
    }

    /**
     * The JDK's SHA-256 over what 1 MiB FileChannel reads bring into one reused buffer per thread: where
     * mapping a file's pages costs more than copying them (on a VM, faulting in 4 KiB page cache pages
     * took a third of the time of hashing them), this is the faster way to hash the source.
     */
    public Measurement.Timed sha256Read(long bytes) {
        return new Measurement.Timed("SHA-256 over reads", "JDK intrinsic over 1 MiB FileChannel reads, " + threads + " threads",
                bytes, () -> onEveryRange((channel, segment, from, length) -> hashRead(channel, from, length)));
    }

    private interface RangeWork {
        void run(FileChannel channel, MemorySegment file, long from, long length) throws IOException;
    }

    private void onEveryRange(RangeWork work) throws Exception {
        List<Future<Void>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            running.add(pool.submit(() -> {
                for (Path file : files) {
                    try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                        long size = channel.size();
                        long from = size * thread / threads;
                        long to = size * (thread + 1) / threads;
                        if (to > from) {
                            work.run(channel, channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena), from, to - from);
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<Void> f : running) {
            f.get();
        }
    }

    private static void read(FileChannel channel, long from, long length) throws IOException {
        inPieces(channel, from, length, BUFFERS.get(), piece -> {});
    }

    private static void hashRead(FileChannel channel, long from, long length) throws IOException {
        Sha256 sha = new Sha256();
        inPieces(channel, from, length, BUFFERS.get(), sha::update);
        sha.hex();
    }

    /** {@code length} bytes of the file from {@code from}, read into {@code buffer} a buffer's worth at a time, each handed on. */
    static void inPieces(FileChannel channel, long from, long length, ByteBuffer buffer, Consumer<MemorySegment> each)
            throws IOException {
        for (long done = 0; done < length; ) {
            int piece = (int) Math.min(buffer.capacity(), length - done);
            if (!PositionalReads.fill(channel, from + done, buffer.clear().limit(piece))) {
                throw new IOException("file ends at " + (from + done + buffer.position()) + ", expected " + (from + length));
            }
            each.accept(MemorySegment.ofBuffer(buffer.flip()));
            done += piece;
        }
    }

    private static final ThreadLocal<ByteBuffer> BUFFERS = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(READ_BUFFER));

    /** The sizes of {@code files}, summed. */
    public static long totalBytes(List<Path> files) throws IOException {
        long total = 0;
        for (Path file : files) {
            total += Files.size(file);
        }
        return total;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}

package io.weightstore.weights.loader;

/**
 * Keeps the buffers of the last closed {@link TensorStream} for the next one, so their memory is
 * touched once rather than once per stream: on these VMs a first touch costs about 3 us per 4 KiB
 * page, 0.4 s for the default 512 MiB, which is most of a small checkpoint's load. A
 * {@link CheckpointSource} has one of its own unless {@link LoadOptions#withBufferPool} gives it
 * one to share with other sources (a process that loads or reloads several checkpoints); whoever
 * creates a pool closes it. Streams open at the same time each get their own buffers; a stream
 * needing larger halves than those kept gets new ones.
 */
public final class StreamBufferPool implements AutoCloseable {
    private StreamBuffers spare;
    private boolean closed;

    synchronized StreamBuffers borrow(long halfBytes) {
        if (closed) {
            throw new IllegalStateException("stream buffer pool is closed");
        }
        StreamBuffers kept = spare;
        spare = null;
        if (kept != null && kept.halfBytes() >= halfBytes) {
            return kept;
        }
        if (kept != null) {
            kept.close();
        }
        return new StreamBuffers(halfBytes, TensorStream.ALIGNMENT);
    }

    synchronized void giveBack(StreamBuffers buffers) {
        if (closed || spare != null) {
            buffers.close();
        } else {
            spare = buffers;
        }
    }

    /** Frees the kept buffers; buffers of streams still open are freed when those streams close. */
    @Override
    public synchronized void close() {
        closed = true;
        if (spare != null) {
            spare.close();
            spare = null;
        }
    }
}

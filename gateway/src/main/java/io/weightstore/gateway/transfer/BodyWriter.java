package io.weightstore.gateway.transfer;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.ChannelProgressivePromise;
import io.weightstore.store.client.InPlaceFiles;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes a response body to a connection with no copy in user space: from pool files in place, with
 * sendfile, as nginx sends files, or from off-heap memory that the socket takes as it is, such as a
 * chunk read from the nodes. A write is handed to the connection's event loop and is done once the
 * socket took its last byte; until then its source must stay as it is, which {@link Sent#await}
 * waits for.
 *
 * <p>Every wait has a deadline on stalls, not on the whole: a client that takes no byte for that long
 * is cut off, so it cannot hold a transfer slot and a read lease for ever, while one that reads a
 * large range slowly but steadily gets all of it.
 */
public final class BodyWriter {
    private final Channel channel;
    private final Duration deadline;
    /** When the socket last took bytes of this body, or a write began; written on the event loop, read by waiters. */
    private volatile long progressNanos = System.nanoTime();
    private final ChannelProgressiveFutureListener progress = new ChannelProgressiveFutureListener() {
        @Override
        public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
            progressNanos = System.nanoTime();
        }

        @Override
        public void operationComplete(ChannelProgressiveFuture future) {
            progressNanos = System.nanoTime();
        }
    };
    private long written;
    private Sent last;

    /**
     * Writes to {@code channel}, whose response status and headers are written; cuts the client off
     * once it took no byte for {@code deadline}.
     */
    public BodyWriter(Channel channel, Duration deadline) {
        this.channel = channel;
        this.deadline = deadline;
    }

    /** Bytes handed to the connection so far. */
    public long written() {
        return written;
    }

    /** Starts sending {@code ranges} of pool files, in order, which must stay open until the result's {@link Sent#await} returns. */
    public Sent write(List<InPlaceFiles.FileRange> ranges) {
        for (InPlaceFiles.FileRange range : ranges) {
            last = send(new FileRangeRegion(range), range.length());
        }
        return last;
    }

    /**
     * Starts writing {@code bytes} (at most 2 GiB, as one {@code ByteBuffer} holds; a chunk is at most
     * 256 MiB), which must stay untouched until the result's {@link Sent#await} returns.
     */
    public Sent write(MemorySegment bytes) {
        last = send(Unpooled.wrappedBuffer(bytes.asByteBuffer()), bytes.byteSize());
        return last;
    }

    private Sent send(Object message, long bytes) {
        // Each write starts the stall clock again: the time spent reading the next chunk is not the client's.
        progressNanos = System.nanoTime();
        ChannelProgressivePromise promise = channel.newProgressivePromise();
        promise.addListener(progress);
        written += bytes;
        return new Sent(channel.writeAndFlush(message, promise), bytes);
    }

    /** Waits until everything written so far is sent, or has failed. */
    public void drain() throws IOException {
        if (last != null) {
            last.await();
        }
    }

    /**
     * Gives up on the response: closes the connection and waits until the writes still queued have
     * failed, so none reads the memory it was given once this returns.
     */
    public void abort() {
        channel.close().awaitUninterruptibly();
        if (last != null) {
            last.future.awaitUninterruptibly();
        }
    }

    /** One write in flight. Writes on a connection complete in order, so waiting for one waits for those before it. */
    public final class Sent {
        private final ChannelFuture future;
        private final long bytes;

        private Sent(ChannelFuture future, long bytes) {
            this.future = future;
            this.bytes = bytes;
        }

        /**
         * Waits until the socket took the write.
         *
         * @throws IOException when the connection broke, or the client took no byte of the body for the deadline (the connection is then closed)
         */
        public void await() throws IOException {
            try {
                while (!future.isDone()) {
                    long left = deadline.toNanos() - (System.nanoTime() - progressNanos);
                    if (left <= 0) {
                        // Closing fails the writes still queued, so the memory they point at is let go of before this returns.
                        channel.close().awaitUninterruptibly();
                        future.awaitUninterruptibly();
                        throw new IOException("the client took no byte of a " + bytes + "-byte write for " + deadline.toMillis()
                                + " ms; connection closed");
                    }
                    future.await(left, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                channel.close().awaitUninterruptibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while sending a response body; connection closed", e);
            }
            if (!future.isSuccess()) {
                throw new IOException("sending the response body failed: " + future.cause(), future.cause());
            }
        }
    }
}

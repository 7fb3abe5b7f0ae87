package io.weightstore.gateway.transfer;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
 * <p>Every wait has a deadline: a client that takes no bytes for that long is cut off, so it cannot
 * hold a transfer slot and a read lease for ever.
 */
public final class BodyWriter {
    private final Channel channel;
    private final Duration deadline;
    private long written;
    private Sent last;

    /** Writes to {@code channel}, whose response status and headers are written; waits at most {@code deadline} per write. */
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
            last = new Sent(channel.writeAndFlush(new FileRangeRegion(range)), range.length());
            written += range.length();
        }
        return last;
    }

    /**
     * Starts writing {@code bytes} (at most 2 GiB, as one {@code ByteBuffer} holds; a chunk is at most
     * 256 MiB), which must stay untouched until the result's {@link Sent#await} returns.
     */
    public Sent write(MemorySegment bytes) {
        last = new Sent(channel.writeAndFlush(Unpooled.wrappedBuffer(bytes.asByteBuffer())), bytes.byteSize());
        written += bytes.byteSize();
        return last;
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
         * @throws IOException when the connection broke, or the client did not take it within the deadline (the connection is then closed)
         */
        public void await() throws IOException {
            boolean done;
            try {
                done = future.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                channel.close().awaitUninterruptibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while sending a response body; connection closed", e);
            }
            if (!done) {
                // Closing fails the writes still queued, so the memory they point at is let go of before this returns.
                channel.close().awaitUninterruptibly();
                future.awaitUninterruptibly();
                throw new IOException("the client did not take a " + bytes + "-byte write within " + deadline.toMillis()
                        + " ms; connection closed");
            }
            if (!future.isSuccess()) {
                throw new IOException("sending the response body failed: " + future.cause(), future.cause());
            }
        }
    }
}

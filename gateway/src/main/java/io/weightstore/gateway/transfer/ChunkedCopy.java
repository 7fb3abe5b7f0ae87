package io.weightstore.gateway.transfer;

import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Moves a range of an open object to a response in chunks of its slot's buffer size, double
 * buffered: while one chunk is sent from its off-heap buffer, the next is read from the nodes into the
 * other. No more than two chunks are ever in memory, whatever the size of the range.
 *
 * <p>The first chunk is read by {@link #start}, before anything is sent, so a read that fails at once
 * still gets an error response; a read that fails later ends the response short, which clients see
 * as a broken transfer and retry.
 */
public final class ChunkedCopy implements AutoCloseable {
    /** A read from the store failed after part of the range was sent. */
    public static final class ReadFailed extends IOException {
        private static final long serialVersionUID = 1L;

        ReadFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final ObjectReader object;
    private final Range range;
    private final TransferSlots.Slot slot;
    private final ExecutorService readers;
    private Future<Integer> pending;

    private ChunkedCopy(ObjectReader object, Range range, TransferSlots.Slot slot, ExecutorService readers) {
        this.object = object;
        this.range = range;
        this.slot = slot;
        this.readers = readers;
    }

    /** Starts copying {@code range} of {@code object} and waits for its first chunk; {@code readers} runs the reads. */
    public static ChunkedCopy start(ObjectReader object, Range range, TransferSlots.Slot slot, ExecutorService readers)
            throws IOException {
        ChunkedCopy copy = new ChunkedCopy(object, range, slot, readers);
        if (range.length() > 0) {
            copy.read(range.offset(), 0);
            try {
                copy.awaitRead();
            } catch (IOException | RuntimeException e) {
                copy.close();
                throw e;
            }
        }
        return copy;
    }

    /**
     * Writes the whole range to {@code out}, each chunk from the buffer it was read into; a buffer is
     * read into again only once the socket took what was written from it.
     *
     * @throws ReadFailed when a later chunk could not be read; what {@code out} throws when the client went away
     */
    public void writeTo(BodyWriter out) throws IOException {
        BodyWriter.Sent[] sending = new BodyWriter.Sent[2];
        long offset = range.offset();
        int current = 0;
        while (offset < range.end()) {
            int length;
            try {
                length = awaitRead();
            } catch (IOException | RuntimeException e) {
                throw new ReadFailed("reading " + object.key() + " at offset " + offset + " failed after " + out.written() + " of "
                        + range.length() + " bytes were sent: " + e.getMessage(), e);
            }
            long next = offset + length;
            if (next < range.end()) {
                if (sending[1 - current] != null) {
                    sending[1 - current].await();
                }
                read(next, 1 - current);
            }
            sending[current] = out.write(slot.buffer(current).asSlice(0, length));
            offset = next;
            current = 1 - current;
        }
        out.drain();
    }

    /**
     * Reads the chunk at {@code offset}. Chunks end at multiples of the chunk size in the object, so
     * a range that starts anywhere still reads whole checksum blocks after its first chunk, rather
     * than having the store verify the same block for two chunks.
     */
    private void read(long offset, int buffer) {
        long chunkEnd = (offset / slot.chunkBytes() + 1) * slot.chunkBytes();
        int length = (int) (Math.min(chunkEnd, range.end()) - offset);
        MemorySegment target = slot.buffer(buffer).asSlice(0, length);
        pending = readers.submit(() -> {
            object.read(new Range(offset, length), target);
            return length;
        });
    }

    private int awaitRead() throws IOException {
        try {
            return pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + object.key(), e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException runtime -> throw runtime;
                case Error error -> throw error;
                default -> throw new IOException("reading " + object.key() + " failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /** Waits for a read still in flight, even when interrupted, so its buffer is not written to once the slot is given back. */
    @Override
    public void close() {
        if (pending == null) {
            return;
        }
        boolean interrupted = false;
        while (!pending.isDone()) {
            try {
                pending.get();
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException ignored) {
                // The response has failed already; this read's outcome no longer matters.
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

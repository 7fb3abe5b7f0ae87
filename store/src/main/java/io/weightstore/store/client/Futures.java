package io.weightstore.store.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waiting on background I/O: its own IOException or RuntimeException comes back as it was thrown. */
public final class Futures {
    private Futures() {}

    /** Waits for {@code future}, which only this caller waits for: interrupted, the caller cancels it. */
    public static <T> T await(Future<T> future) throws IOException {
        return await(future, true);
    }

    /**
     * Waits for {@code future}, which other callers may be waiting for too (a file's check, a batch of tensors, a
     * single-flight call): interrupted, this caller stops waiting and leaves it running for them.
     */
    public static <T> T awaitShared(Future<T> future) throws IOException {
        return await(future, false);
    }

    private static <T> T await(Future<T> future, boolean cancelWhenInterrupted) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (cancelWhenInterrupted) {
                future.cancel(true);
            }
            throw new InterruptedIOException("interrupted while waiting for background I/O");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }
}

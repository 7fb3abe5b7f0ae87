package io.weightstore.store.wire;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Deadlines for blocking socket I/O: a channel whose operation outlives its deadline is closed, so
 * the blocked read, write or sendfile fails at once and its thread is free. Arming costs a timer
 * entry, not a system call per read, so the transfer path keeps its blocking, zero-copy I/O.
 */
public final class DeadlineTimer implements AutoCloseable {
    private final ScheduledThreadPoolExecutor timer;

    public DeadlineTimer(String threadName) {
        timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name(threadName).factory());
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Closes {@code channel} after {@code timeout} unless the returned deadline is closed first. */
    public Deadline arm(Closeable channel, Duration timeout) {
        Deadline deadline = new Deadline(timeout);
        deadline.task = timer.schedule(() -> deadline.expire(channel), timeout.toNanos(), TimeUnit.NANOSECONDS);
        return deadline;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** One armed deadline; closing it before it fires leaves the channel open. */
    public static final class Deadline implements AutoCloseable {
        private final Duration timeout;
        private volatile ScheduledFuture<?> task;
        private volatile boolean expired;

        private Deadline(Duration timeout) {
            this.timeout = timeout;
        }

        private void expire(Closeable channel) {
            expired = true;
            try {
                channel.close();
            } catch (IOException ignored) {
                // The operation it cuts short reports the timeout; a failed close changes nothing about that.
            }
        }

        /** Whether the deadline passed and closed the channel: an I/O error since then is this timeout. */
        public boolean expired() {
            return expired;
        }

        public Duration timeout() {
            return timeout;
        }

        @Override
        public void close() {
            task.cancel(false);
        }
    }
}

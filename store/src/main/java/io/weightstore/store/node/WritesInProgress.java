package io.weightstore.store.node;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.concurrent.DeadlineWait;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections whose WRITE may still land bytes in the pool, so that a node registering anew can end
 * them: the master it registers with may not know the puts they write for (it restarted, or another took
 * over) and counts their room free, to hand to the next put. A connection joins before its write is
 * authorized, and the node renews its grant key before it ends those that joined: a write authorized
 * under the old key is ended, and one authorized after the renewal needs a grant of the new master's.
 */
final class WritesInProgress {
    private static final Logger log = LoggerFactory.getLogger(WritesInProgress.class);

    /** Each writing connection, with what counts down once its write stops touching the pool. */
    private final Map<SocketChannel, CountDownLatch> writing = new ConcurrentHashMap<>();

    void started(SocketChannel connection) {
        writing.put(connection, new CountDownLatch(1));
    }

    void ended(SocketChannel connection) {
        CountDownLatch stopped = writing.remove(connection);
        if (stopped != null) {
            stopped.countDown();
        }
    }

    /**
     * Closes every connection writing now, each writer seeing its put fail, and waits until {@code deadline} (a
     * {@link System#nanoTime} value) for each to stop: a close ends the next read, while a piece already received may
     * still be on its way into the pool. Returns how many there were; fails when one may still write.
     */
    int endAll(long deadline) throws StoreException {
        List<Map.Entry<SocketChannel, CountDownLatch>> ending = List.copyOf(writing.entrySet());
        for (Map.Entry<SocketChannel, CountDownLatch> write : ending) {
            try {
                write.getKey().close();
            } catch (IOException e) {
                log.warn("closing a connection whose write a new registration ends failed", e);
            }
        }
        for (Map.Entry<SocketChannel, CountDownLatch> write : ending) {
            if (!DeadlineWait.await(write.getValue(), deadline)) {
                throw new StoreException(StoreException.Code.UNAVAILABLE, "a write for the master before, its connection closed,"
                        + " is still landing bytes in the pool; the node registers once it stops");
            }
        }
        return ending.size();
    }
}

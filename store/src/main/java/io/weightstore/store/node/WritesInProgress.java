package io.weightstore.store.node;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

    private final Set<SocketChannel> writing = ConcurrentHashMap.newKeySet();

    void started(SocketChannel connection) {
        writing.add(connection);
    }

    void ended(SocketChannel connection) {
        writing.remove(connection);
    }

    /** Closes every connection writing now; each writer sees its put fail. Returns how many there were. */
    int endAll() {
        int ended = 0;
        for (SocketChannel connection : writing) {
            try {
                connection.close();
                ended++;
            } catch (IOException e) {
                log.warn("closing a connection whose write a new registration ends failed", e);
            }
        }
        return ended;
    }
}

package io.weightstore.store.node;

import io.weightstore.store.api.NodeLoad;
import java.util.concurrent.atomic.LongAdder;

/** What a node did since it started, counted as it happens and reported with each heartbeat. Thread-safe. */
final class NodeCounters {
    private final LongAdder served = new LongAdder();
    private final LongAdder scrubbed = new LongAdder();
    private final LongAdder copied = new LongAdder();

    void served(long bytes) {
        served.add(bytes);
    }

    void scrubbed(long bytes) {
        scrubbed.add(bytes);
    }

    void copied(long bytes) {
        copied.add(bytes);
    }

    long bytesServed() {
        return served.sum();
    }

    NodeLoad load(int connections) {
        return new NodeLoad(served.sum(), connections, scrubbed.sum(), copied.sum());
    }
}

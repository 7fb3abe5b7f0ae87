package io.weightstore.store.api;

import java.util.List;

/**
 * The master's answer to a heartbeat: whether it knows the node (else the node registers again),
 * every copy the node should be making now (a copy it makes that is not listed was given up, and
 * stops), replicas to scrub next, and how fast the node may copy.
 *
 * @param copyBytesPerSecond the node's budget for copies from other nodes, so loads keep their bandwidth
 */
public record NodeOrders(boolean known, List<CopyTask> copies, List<ScrubTask> scrub, long copyBytesPerSecond) {
    public NodeOrders {
        copies = List.copyOf(copies);
        scrub = List.copyOf(scrub);
    }

    /** What the master answers a node it does not know. */
    public static NodeOrders unknown() {
        return new NodeOrders(false, List.of(), List.of(), 0);
    }

    public NodeOrders withCopies(List<CopyTask> sealed) {
        return new NodeOrders(known, sealed, scrub, copyBytesPerSecond);
    }
}

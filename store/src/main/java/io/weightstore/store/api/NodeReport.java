package io.weightstore.store.api;

import java.util.List;

/**
 * What a node tells its master with each heartbeat: its load, the copies it is making, the bad
 * copies its scrubber found since the last report, and how many bytes of scrubbing it can take on.
 *
 * @param scrubRoom bytes of replicas the node would check next; 0 when its scrubber is off or busy
 */
public record NodeReport(String nodeId, NodeLoad load, List<CopyProgress> copies, List<ScrubFinding> badCopies, long scrubRoom) {
    public NodeReport {
        copies = List.copyOf(copies);
        badCopies = List.copyOf(badCopies);
    }

    /** A heartbeat that says nothing but that the node is alive. */
    public static NodeReport alive(String nodeId) {
        return new NodeReport(nodeId, NodeLoad.none(), List.of(), List.of(), 0);
    }
}

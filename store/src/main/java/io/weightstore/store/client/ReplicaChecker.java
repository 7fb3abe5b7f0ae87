package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.plan.ReadPlanner;
import io.weightstore.store.client.plan.ReadTask;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Checks every copy of every slice of an object where it lies: each node verifies all the checksum
 * blocks of its copy and sends no data, so a whole object is checked with no byte on the network.
 * Copies are checked in parallel, on the client's workers.
 */
final class ReplicaChecker {
    private final ExecutorService workers;
    private final NodeConnections connections;

    ReplicaChecker(ExecutorService workers, NodeConnections connections) {
        this.workers = workers;
        this.connections = connections;
    }

    /** The master's view alone: a copy on a node that is up is PRESENT, any other MISSING. Nothing is read. */
    static List<ReplicaVerdict> presence(Located located) {
        List<ReplicaVerdict> verdicts = new ArrayList<>();
        ObjectMeta object = located.object();
        for (int i = 0; i < object.slices().size(); i++) {
            int slice = i;
            for (ReplicaRef replica : object.slice(i).replicas()) {
                verdicts.add(unreachable(located, slice, replica).orElseGet(() -> new ReplicaVerdict(slice, replica,
                        ReplicaVerdict.State.PRESENT, "on node " + replica.nodeId() + ", which is up")));
            }
        }
        return verdicts;
    }

    /** Every copy checked on its node; copies on nodes that are down or unknown are MISSING without a try. */
    List<ReplicaVerdict> check(Located located) throws IOException {
        ObjectMeta object = located.object();
        List<Future<ReplicaVerdict>> checks = new ArrayList<>();
        for (int i = 0; i < object.slices().size(); i++) {
            int slice = i;
            for (ReplicaRef replica : object.slice(i).replicas()) {
                checks.add(workers.submit(() -> check(located, slice, replica)));
            }
        }
        List<ReplicaVerdict> verdicts = new ArrayList<>(checks.size());
        for (Future<ReplicaVerdict> check : checks) {
            verdicts.add(Futures.await(check));
        }
        return verdicts;
    }

    private ReplicaVerdict check(Located located, int slice, ReplicaRef replica) throws StoreException {
        Optional<ReplicaVerdict> missing = unreachable(located, slice, replica);
        if (missing.isPresent()) {
            return missing.get();
        }
        NodeStatus node = located.nodes().get(replica.nodeId());
        List<BlockCheck> blocks = wholeSlice(located.object(), slice, replica.offset());
        try (NodeConnections.Held held = connections.hold(node.info())) {
            held.access().verify(blocks);
            return new ReplicaVerdict(slice, replica, ReplicaVerdict.State.OK, blocks.size() + " blocks match on node " + node.nodeId());
        } catch (StoreException e) {
            return switch (e.code()) {
                case CORRUPT -> new ReplicaVerdict(slice, replica, ReplicaVerdict.State.CORRUPT, e.getMessage());
                // A wrong token is this client's problem, not the copy's: say so instead of calling every copy missing.
                case UNAUTHENTICATED -> throw e;
                default -> new ReplicaVerdict(slice, replica, ReplicaVerdict.State.MISSING, "node " + node.nodeId()
                        + " cannot serve it: " + e.getMessage());
            };
        } catch (IOException e) {
            return new ReplicaVerdict(slice, replica, ReplicaVerdict.State.MISSING, "node " + node.nodeId() + " at "
                    + node.endpoint() + " did not answer: " + e.getMessage());
        }
    }

    /** MISSING when the copy's node is unknown to the master or down, as the lease's view of the nodes says. */
    private static Optional<ReplicaVerdict> unreachable(Located located, int slice, ReplicaRef replica) {
        NodeStatus node = located.nodes().get(replica.nodeId());
        if (node == null) {
            return Optional.of(new ReplicaVerdict(slice, replica, ReplicaVerdict.State.MISSING, "node " + replica.nodeId()
                    + " is unknown to the master"));
        }
        if (!node.up()) {
            return Optional.of(new ReplicaVerdict(slice, replica, ReplicaVerdict.State.MISSING, "node " + replica.nodeId()
                    + " is down, last heartbeat " + node.lastHeartbeat()));
        }
        return Optional.empty();
    }

    /** Every checksum block of a slice, placed at a copy's offset in its node's pool. */
    static List<BlockCheck> wholeSlice(ObjectMeta object, int slice, long replicaOffset) {
        ReadTask whole = new ReadTask.Ranges(slice, List.of(new Range(0, object.slice(slice).length())), 0);
        return ReadPlanner.checks(whole, object, replicaOffset);
    }
}

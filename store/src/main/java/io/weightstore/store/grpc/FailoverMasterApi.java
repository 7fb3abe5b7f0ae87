package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.NodeKeys;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MasterApi} over a group of masters: each call goes to the master that led last time; when
 * that one is a follower (it says so, naming the leader) or cannot be reached, the call moves to the
 * leader it named, else to the next master, backing off while no master leads, until the call's
 * budget runs out. A call that may have been carried out before its master went away (the
 * connection broke mid-call, or its deadline passed) is repeated only when repeating it is harmless;
 * a put's start or end, or a removal, then fails saying the outcome is unknown. Such a call has the
 * deadline a single master's calls have, not a try's: it cannot move to another master once sent, and a
 * leader whose writes queue behind each other (each an etcd transaction) may take longer than a try to
 * answer it. What the leader itself answered, even UNAVAILABLE, is the call's answer.
 */
final class FailoverMasterApi implements MasterApi {
    private static final Logger log = LoggerFactory.getLogger(FailoverMasterApi.class);
    /** Each try; short enough that a frozen master leaves time to try the others. */
    static final Duration ATTEMPT_DEADLINE = Duration.ofSeconds(5);
    /** All tries of one call: covers an election (the leader's etcd lease, 2 s by default) with room to spare. */
    static final Duration CALL_BUDGET = Duration.ofSeconds(30);

    /** One call on one master. */
    @FunctionalInterface
    private interface Call<T> {
        T on(MasterApi master) throws StoreException;
    }

    /** Whether a call may be sent again when it is unknown whether the first one took effect. */
    private enum Replay {
        SAFE,
        UNSAFE
    }

    private final List<MasterAddress> masters;
    private final Authentication authentication;
    private final Optional<NodeKeys> nodeKeys;
    private final Duration attemptDeadline;
    private final Duration unsafeDeadline;
    private final Duration budget;
    private final Map<String, GrpcMasterApi> connections = new ConcurrentHashMap<>();
    private volatile String current;

    private FailoverMasterApi(List<MasterAddress> masters, Authentication authentication, Optional<NodeKeys> nodeKeys,
            Duration attemptDeadline, Duration unsafeDeadline, Duration budget) {
        this.masters = masters;
        this.authentication = authentication;
        this.nodeKeys = nodeKeys;
        this.attemptDeadline = attemptDeadline;
        this.unsafeDeadline = unsafeDeadline;
        this.budget = budget;
        this.current = masters.getFirst().toString();
    }

    static FailoverMasterApi connect(List<MasterAddress> masters, Authentication authentication, Optional<NodeKeys> nodeKeys) {
        return connect(masters, authentication, nodeKeys, ATTEMPT_DEADLINE, GrpcMasterApi.DEFAULT_DEADLINE, CALL_BUDGET);
    }

    /** As above, with a try's deadline, an unrepeatable call's, and the budget of all tries of a call. */
    static FailoverMasterApi connect(List<MasterAddress> masters, Authentication authentication, Optional<NodeKeys> nodeKeys,
            Duration attemptDeadline, Duration unsafeDeadline, Duration budget) {
        return new FailoverMasterApi(List.copyOf(masters), authentication, nodeKeys, attemptDeadline, unsafeDeadline, budget);
    }

    private GrpcMasterApi master(String address) throws StoreException {
        GrpcMasterApi open = connections.get(address);
        if (open != null) {
            return open;
        }
        GrpcMasterApi fresh = GrpcMasterApi.connect(address, authentication, nodeKeys, attemptDeadline);
        GrpcMasterApi raced = connections.putIfAbsent(address, fresh);
        if (raced != null) {
            fresh.close();
            return raced;
        }
        return fresh;
    }

    private <T> T call(String what, Replay replay, Call<T> call) throws StoreException {
        long deadline = System.nanoTime() + budget.toNanos();
        FailoverBackoff backoff = new FailoverBackoff();
        int triedSinceBackoff = 0;
        while (true) {
            String target = current;
            StoreException failure;
            try {
                GrpcMasterApi master = master(target);
                return call.on(replay == Replay.UNSAFE ? master.withDeadline(unsafeDeadline) : master);
            } catch (StoreException e) {
                // The leader's own UNAVAILABLE (not enough nodes up, say) is its answer, as a single master's would be;
                // taken for a master gone, it would bounce between followers for the whole budget, or leave a put unknown.
                if (e.code() != StoreException.Code.UNAVAILABLE || GrpcStatuses.answeredAsLeader(e)) {
                    throw e;
                }
                failure = e;
            }
            Optional<String> leader = leaderNamedBy(failure);
            boolean notCarriedOut = leader.isPresent() || neverConnected(failure);
            if (!notCarriedOut && replay == Replay.UNSAFE) {
                throw new StoreException(StoreException.Code.UNAVAILABLE, what + ": master " + target
                        + " went away during the call, so whether it took effect is unknown; not repeated: " + failure.getMessage(), failure);
            }
            Optional<String> named = leader.filter(l -> !l.equals(GrpcStatuses.NO_LEADER));
            boolean leaderNotReady = named.isPresent() && named.get().equals(target);
            String next = leaderNotReady ? target : named.orElseGet(() -> after(target));
            if (!next.equals(target)) {
                log.debug("{}: moving from master {} to {} ({})", what, target, next, failure.getMessage());
            }
            setCurrent(target, next);
            long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
            if (remainingMs <= 0) {
                throw new StoreException(StoreException.Code.UNAVAILABLE, what + ": no master of " + masters + " answered as leader within "
                        + budget.toSeconds() + " s; last: " + failure.getMessage(), failure);
            }
            // Straight to a leader that was named; wait a little for one that is not ready yet, and after a round of the
            // list with no leader named.
            if (leaderNotReady || (named.isEmpty() && ++triedSinceBackoff >= masters.size())) {
                sleep(Math.min(backoff.pause(leaderNotReady), remainingMs));
                triedSinceBackoff = 0;
            }
        }
    }

    private synchronized void setCurrent(String expected, String next) {
        if (current.equals(expected)) {
            current = next;
        }
    }

    /** The master after {@code address} in the list; a leader from outside the list goes back to the first. */
    private String after(String address) {
        for (int i = 0; i < masters.size(); i++) {
            if (masters.get(i).toString().equals(address)) {
                return masters.get((i + 1) % masters.size()).toString();
            }
        }
        return masters.getFirst().toString();
    }

    /** The leader a follower named when it refused the call, if it was such a refusal. */
    private static Optional<String> leaderNamedBy(StoreException e) {
        Metadata trailers = e.getCause() == null ? null : Status.trailersFromThrowable(e.getCause());
        return trailers == null ? Optional.empty() : Optional.ofNullable(trailers.get(GrpcStatuses.LEADER));
    }

    /** True when the call failed before reaching any master: nothing can have happened. */
    private static boolean neverConnected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    private static void sleep(long millis) throws StoreException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Code.UNAVAILABLE, "interrupted while waiting for a master to lead", e);
        }
    }

    @Override
    public Duration registerNode(NodeInfo node) throws StoreException {
        return call("register node " + node.nodeId(), Replay.SAFE, m -> m.registerNode(node));
    }

    /** Safe to repeat: a report says where things stand, and orders are the whole list each time. */
    @Override
    public NodeOrders heartbeat(NodeReport report) throws StoreException {
        return call("heartbeat", Replay.SAFE, m -> m.heartbeat(report));
    }

    /** Safe to repeat: a copy committed once is unknown the second time, and the node drops it. */
    @Override
    public void finishCopy(String nodeId, String taskId, CopyOutcome outcome) throws StoreException {
        call("report copy " + taskId, Replay.SAFE, m -> {
            m.finishCopy(nodeId, taskId, outcome);
            return null;
        });
    }

    /** Safe to repeat: setting a count twice sets it once. */
    @Override
    public int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException {
        return call("set the replicas of " + keys.size() + " objects", Replay.SAFE, m -> m.setReplicas(keys, replicas, auto));
    }

    @Override
    public int keepLocalCopies(List<String> keys, String nodeId) throws StoreException {
        return call("keep local copies on node " + nodeId, Replay.SAFE, m -> m.keepLocalCopies(keys, nodeId));
    }

    @Override
    public NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException {
        return call((cancel ? "stop draining node " : "drain node ") + nodeId, Replay.SAFE, m -> m.drainNode(nodeId, cancel));
    }

    @Override
    public PutGrant putStart(String key, long size, PutOptions options) throws StoreException {
        return call("put " + key, Replay.UNSAFE, m -> m.putStart(key, size, options));
    }

    @Override
    public ObjectMeta putEnd(String putId, List<BlockCrcs> checksums) throws StoreException {
        return call("seal put " + putId, Replay.UNSAFE, m -> m.putEnd(putId, checksums));
    }

    @Override
    public void putAbort(String putId) throws StoreException {
        call("abort put " + putId, Replay.SAFE, m -> {
            m.putAbort(putId);
            return null;
        });
    }

    @Override
    public int abortPutsOf(String writer) throws StoreException {
        return call("abort the puts of " + writer, Replay.SAFE, m -> m.abortPutsOf(writer));
    }

    @Override
    public RepairGrant repairStart(String key, Instant version, int slice, String replacing) throws StoreException {
        return call("repair slice " + slice + " of " + key, Replay.UNSAFE, m -> m.repairStart(key, version, slice, replacing));
    }

    @Override
    public ObjectMeta repairEnd(String repairId) throws StoreException {
        return call("commit repair " + repairId, Replay.UNSAFE, m -> m.repairEnd(repairId));
    }

    @Override
    public void repairAbort(String repairId) throws StoreException {
        call("abort repair " + repairId, Replay.SAFE, m -> {
            m.repairAbort(repairId);
            return null;
        });
    }

    @Override
    public NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException {
        return call("forget node " + nodeId, Replay.UNSAFE, m -> m.forgetNode(nodeId, force));
    }

    @Override
    public int removeAll(List<String> keys, boolean force, String writer, String lock) throws StoreException {
        // All or nothing: a repeat after an unknown outcome finds the keys gone, or removes them all.
        return call("remove " + keys.size() + " objects", Replay.UNSAFE, m -> m.removeAll(keys, force, writer, lock));
    }

    @Override
    public Room room() throws StoreException {
        return call("room", Replay.SAFE, MasterApi::room);
    }

    @Override
    public ObjectMeta stat(String key) throws StoreException {
        return call("stat " + key, Replay.SAFE, m -> m.stat(key));
    }

    /** Safe to repeat: a lease taken by a try whose answer was lost only runs out unused. */
    @Override
    public Located locate(String key, Duration lease) throws StoreException {
        return call("locate " + key, Replay.SAFE, m -> m.locate(key, lease));
    }

    @Override
    public Lease renewLease(String key, long leaseId, Duration lease) throws StoreException {
        return call("renew lease on " + key, Replay.SAFE, m -> m.renewLease(key, leaseId, lease));
    }

    @Override
    public void releaseLease(String key, long leaseId) throws StoreException {
        call("release lease on " + key, Replay.SAFE, m -> {
            m.releaseLease(key, leaseId);
            return null;
        });
    }

    /** Safe to repeat, as {@link #locate} is. */
    @Override
    public List<Located> locateAll(List<String> keys, Duration lease) throws StoreException {
        return call("locate " + keys.size() + " objects", Replay.SAFE, m -> m.locateAll(keys, lease));
    }

    @Override
    public void releaseLeases(List<HeldLease> leases) throws StoreException {
        call("release " + leases.size() + " leases", Replay.SAFE, m -> {
            m.releaseLeases(leases);
            return null;
        });
    }

    @Override
    public List<Optional<Lease>> renewLeases(List<HeldLease> leases, Duration lease) throws StoreException {
        return call("renew " + leases.size() + " leases", Replay.SAFE, m -> m.renewLeases(leases, lease));
    }

    @Override
    public void remove(String key, boolean force) throws StoreException {
        call("remove " + key, Replay.UNSAFE, m -> {
            m.remove(key, force);
            return null;
        });
    }

    @Override
    public ListPage list(String prefix, String startAfter, int limit) throws StoreException {
        return call("list " + prefix, Replay.SAFE, m -> m.list(prefix, startAfter, limit));
    }

    /** Safe to repeat: the owner that holds a lock may take it again. */
    @Override
    public LockState tryLock(String name, String owner, Duration ttl) throws StoreException {
        return call("lock " + name, Replay.SAFE, m -> m.tryLock(name, owner, ttl));
    }

    @Override
    public LockState renewLock(String name, String owner, Duration ttl) throws StoreException {
        return call("renew lock " + name, Replay.SAFE, m -> m.renewLock(name, owner, ttl));
    }

    @Override
    public void releaseLock(String name, String owner) throws StoreException {
        call("release lock " + name, Replay.SAFE, m -> {
            m.releaseLock(name, owner);
            return null;
        });
    }

    @Override
    public StoreStatus status() throws StoreException {
        return call("status", Replay.SAFE, MasterApi::status);
    }

    /** The leader's status, with each master given to this client that the leader does not list asked why (see {@link GroupMasters}). */
    @Override
    public StoreStatus statusWithEveryMaster() throws StoreException {
        StoreStatus status = status();
        if (status.masters().isEmpty()) {
            return status;
        }
        return status.withGroup(GroupMasters.of(status.masters(), masters, this::master), status.etcd());
    }

    @Override
    public void close() {
        connections.values().forEach(GrpcMasterApi::close);
    }
}

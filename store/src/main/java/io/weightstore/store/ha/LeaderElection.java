package io.weightstore.store.ha;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import io.weightstore.store.api.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master's part in electing the leader of its group, on an etcd lease of its own: the master
 * that creates the leader key (attached to its lease) leads until the key goes, and the key's create
 * revision is its {@link Fence}. Followers try to create the key every round, so one takes over as
 * soon as etcd expires a dead leader's lease. The leader steps down as soon as it cannot show that
 * its lease is alive: when a renewal fails, when the last good one is older than the lease, or when
 * the key is no longer its own; it then revokes the lease, so a key it might still hold goes at once.
 * Elections and deposals are told to the {@link Listener} on a thread of their own, in order, so a
 * slow take-over never delays the renewals.
 */
final class LeaderElection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    /** Told when this master starts and stops leading. */
    interface Listener {
        void elected(Fence fence);

        void deposed(Fence fence, String why);
    }

    private final Client etcd;
    private final ClusterKeys keys;
    private final String address;
    private final String holder;
    private final Duration ttl;
    private final Duration timeout;
    private final Duration period;
    private final Listener listener;
    private final ExecutorService roles = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("master-role").factory());
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean revokeRequested;
    /** Whether the member key is written on the current lease; only the election's thread reads and writes it. */
    private boolean memberWritten;
    private long leaseId;
    /** System.nanoTime() after which this master's lease may have expired in etcd. */
    private volatile long leaseValidUntil;
    private volatile Fence fence;
    private volatile String leaderAddress;
    /** When etcd last named {@link #leaderAddress} (System.nanoTime). */
    private volatile long leaderNamedNanos;
    private String lastProblem = "";

    private LeaderElection(Client etcd, ClusterKeys keys, String address, Duration ttl, Duration timeout, Listener listener) {
        this.etcd = etcd;
        this.keys = keys;
        this.address = address;
        this.holder = address + " " + UUID.randomUUID();
        this.ttl = ttl;
        this.timeout = timeout;
        this.period = Duration.ofMillis(Math.clamp(ttl.toMillis() / 8, 50, 250));
        this.listener = listener;
        this.thread = Thread.ofPlatform().daemon().name("master-election").unstarted(this::run);
    }

    /** Joins the election of {@code keys}' cluster as the master clients reach at {@code address}. */
    static LeaderElection start(Client etcd, ClusterKeys keys, String address, Duration ttl, Duration timeout, Listener listener) {
        if (ttl.toSeconds() < 1) {
            throw new IllegalArgumentException("the leader lease must last at least 1 s (etcd counts in seconds): " + ttl);
        }
        LeaderElection election = new LeaderElection(etcd, keys, address, ttl, timeout, listener);
        election.thread.start();
        return election;
    }

    /** True while {@code held} is this master's current fence, whether or not its lease is sure to be alive this moment. */
    boolean isCurrent(Fence held) {
        return held != null && held == fence;
    }

    /** True while {@code held} is this master's current fence and its lease is surely alive. */
    boolean holds(Fence held) {
        return held != null && held == fence && System.nanoTime() < leaseValidUntil;
    }

    /** The leader's HOST:PORT as etcd last named it, if there is one and etcd named it within a lease. */
    Optional<String> leaderAddress() {
        String named = leaderAddress;
        // A leader etcd has not named for longer than a lease may be gone (with etcd out of reach, no round says so):
        // naming it would send clients to a master that refuses them too.
        if (named == null || fence == null && System.nanoTime() - leaderNamedNanos > ttl.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(named);
    }

    String address() {
        return address;
    }

    /** Stops leading under {@code held} at once (a write was refused or its outcome is unknown). */
    void stepDown(Fence held, String why) {
        depose(held, why);
    }

    private void run() {
        while (!closed) {
            try {
                round();
                lastProblem = "";
            } catch (StoreException e) {
                if (!e.getMessage().equals(lastProblem)) {
                    log.warn("master {}: {}", address, e.getMessage());
                    lastProblem = e.getMessage();
                }
            } catch (RuntimeException | Error e) {
                // The rounds go on: this thread ending would leave a fence held past its lease, the master naming itself leader.
                if (!e.toString().equals(lastProblem)) {
                    log.warn("master {}: an election round failed", address, e);
                    lastProblem = e.toString();
                }
            }
            if (System.nanoTime() >= leaseValidUntil) {
                depose(fence, "its etcd lease was not renewed within " + ttl.toMillis() + " ms");
            }
            try {
                Thread.sleep(period);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void round() throws StoreException {
        if (revokeRequested) {
            revokeRequested = false;
            revoke();
        }
        if (leaseId == 0) {
            grant();
        } else if (!keepAlive()) {
            return;
        }
        if (!memberWritten) {
            writeMember();
        }
        if (fence == null) {
            campaign();
        } else {
            confirm(fence);
        }
    }

    private void grant() throws StoreException {
        long sent = System.nanoTime();
        long id = Etcd.await(etcd.getLeaseClient().grant(ttl.toSeconds()), timeout, "a lease grant").getID();
        leaseId = id;
        leaseValidUntil = sent + ttl.toNanos();
        memberWritten = false;
    }

    /** This master among the group's members, on its lease: written again each round until it is (a put may fail). */
    private void writeMember() throws StoreException {
        Etcd.await(etcd.getKVClient().put(keys.member(address), Etcd.bytes(holder), PutOption.builder().withLeaseId(leaseId).build()),
                timeout, "the registration of master " + address);
        memberWritten = true;
    }

    /** False when the lease is gone: then a new one is taken next round. */
    private boolean keepAlive() throws StoreException {
        long sent = System.nanoTime();
        LeaseKeepAliveResponse response;
        try {
            response = Etcd.await(etcd.getLeaseClient().keepAliveOnce(leaseId), timeout, "a lease renewal");
        } catch (StoreException e) {
            // etcd answers "lease not found" with an error rather than a TTL of 0; and a lease that could not
            // be renewed for longer than it lasts is gone whatever the error: either way, take a new one.
            if (Status.fromThrowable(e.getCause()).getCode() == Status.Code.NOT_FOUND || e.getMessage().contains("lease not found")
                    || System.nanoTime() >= leaseValidUntil) {
                leaseId = 0;
                depose(fence, "its etcd lease expired");
            }
            throw e;
        }
        if (response.getTTL() <= 0) {
            leaseId = 0;
            depose(fence, "its etcd lease expired");
            return false;
        }
        leaseValidUntil = sent + Duration.ofSeconds(response.getTTL()).toNanos();
        return true;
    }

    private void campaign() throws StoreException {
        TxnResponse response = Etcd.await(etcd.getKVClient().txn()
                .If(new Cmp(keys.leader(), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(keys.leader(), Etcd.bytes(holder), PutOption.builder().withLeaseId(leaseId).build()))
                .Else(Op.get(keys.leader(), GetOption.DEFAULT))
                .commit(), timeout, "a bid for the leadership");
        if (response.isSucceeded()) {
            lead(new Fence(response.getHeader().getRevision(), holder));
            return;
        }
        List<KeyValue> current = response.getGetResponses().getFirst().getKvs();
        if (current.isEmpty()) {
            leaderAddress = null;
        } else if (!revokeRequested && isOurs(current.getFirst())) {
            // An earlier bid committed but its answer was lost. Nobody else can create the key while it exists,
            // and this master's own renewals keep it alive: unless it takes the key up, the group has no leader. Not
            // when it has just stepped down: the revoke it asked for removes the key next round, for a clean slate.
            lead(new Fence(current.getFirst().getCreateRevision(), holder));
        } else {
            leaderNamedNanos = System.nanoTime();
            leaderAddress = addressIn(Etcd.text(current.getFirst().getValue()));
        }
    }

    /** True when {@code key} was written by this very incarnation, on the lease it is renewing now. */
    private boolean isOurs(KeyValue key) {
        // A key on an earlier lease of ours may be revoked or expire at any moment, whatever it holds.
        return key.getLease() == leaseId && Etcd.text(key.getValue()).equals(holder);
    }

    private void lead(Fence won) {
        fence = won;
        leaderAddress = address;
        log.info("master {} leads cluster {} (fence: etcd revision {})", address, keys.cluster(), won.revision());
        roles.execute(() -> listener.elected(won));
    }

    /** The leader key must still be the one this master created. */
    private void confirm(Fence held) throws StoreException {
        GetResponse response = Etcd.await(etcd.getKVClient().get(keys.leader()), timeout, "a read of the leader key");
        if (response.getKvs().isEmpty() || response.getKvs().getFirst().getCreateRevision() != held.revision()) {
            stepDown(held, "the leader key is no longer the one it created");
        }
    }

    private synchronized void depose(Fence held, String why) {
        if (held == null || fence != held) {
            return;
        }
        fence = null;
        leaderAddress = null;
        // The key may still be this master's, on a lease etcd keeps alive: revoke the lease next round so the key
        // goes at once and the next election (which this master may win again) starts from a clean slate.
        revokeRequested = true;
        log.warn("master {} stops leading cluster {}: {}", address, keys.cluster(), why);
        roles.execute(() -> listener.deposed(held, why));
    }

    private void revoke() {
        long id = leaseId;
        leaseId = 0;
        leaseValidUntil = 0;
        if (id != 0) {
            try {
                Etcd.await(etcd.getLeaseClient().revoke(id), timeout, "a lease revocation");
            } catch (StoreException e) {
                log.warn("master {}: {}; it expires by itself within {} ms", address, e.getMessage(), ttl.toMillis());
            }
        }
    }

    private static String addressIn(String holderValue) {
        int space = holderValue.indexOf(' ');
        return space < 0 ? holderValue : holderValue.substring(0, space);
    }

    /** Leaves the group: hands the leadership over at once (deletes the key, revokes the lease) rather than letting it expire. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(timeout.toMillis() + period.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Fence held = fence;
        if (held != null) {
            depose(held, "it is shutting down");
            try {
                Etcd.await(etcd.getKVClient().txn()
                        .If(new Cmp(keys.leader(), Cmp.Op.EQUAL, CmpTarget.createRevision(held.revision())))
                        .Then(Op.delete(keys.leader(), DeleteOption.DEFAULT)).commit(), timeout, "the hand-over of the leadership");
            } catch (StoreException e) {
                log.warn("master {}: {}", address, e.getMessage());
            }
        }
        revoke();
        roles.shutdown();
        try {
            roles.awaitTermination(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

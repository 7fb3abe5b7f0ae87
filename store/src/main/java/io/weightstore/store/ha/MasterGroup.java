package io.weightstore.store.ha;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.LeaderGate;
import io.weightstore.store.grpc.MasterEndpoint;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterCore;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.security.MasterSecurity;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master of a group coordinated by etcd. Every master serves gRPC; only the leader answers,
 * through a {@link MasterCore} over the metadata in etcd ({@link EtcdMetadataStore}), opened when it
 * wins the election and closed when it loses it. The others refuse each call with UNAVAILABLE and the
 * leader's address ({@link LeaderGate}), so clients go there. A follower keeps a copy of the
 * records current by watching etcd ({@link FollowerCopy}), which it starts from when it is elected.
 * A new leader first lets the nodes report in (register and heartbeat only) for up to two heartbeat
 * intervals, so that its first placements see every node that is up rather than none.
 */
public final class MasterGroup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MasterGroup.class);
    /** What a new leader answers while the nodes report in. */
    private static final Set<String> NODE_CALLS = Set.of("RegisterNode", "Heartbeat");
    /** The largest message taken from etcd: a watch that catches up may send tens of MiB of records at once. */
    private static final int ETCD_MESSAGE_LIMIT = 64 << 20;

    /** The leadership being exercised: the fence it holds and the master answering under it. */
    private record Leading(Fence fence, MasterCore core, long sinceNanos) {}

    private final GroupSettings settings;
    private final MasterConfig config;
    private final Client etcd;
    private final ClusterKeys keys;
    private final MasterEndpoint endpoint;
    /** Null until the election starts, which is after the endpoint: a call that arrives between is refused as too early. */
    private volatile LeaderElection election;
    private final MasterMetrics metrics = new MasterMetrics();
    private volatile Leading leading;
    /** Kept while this master follows; null while it leads. */
    private FollowerCopy copy;
    private volatile boolean warm;
    private volatile long lastLookAtNodes;
    private final AtomicBoolean closed = new AtomicBoolean();

    private MasterGroup(GroupSettings settings, MasterConfig config, Client etcd, String bindHost, int port, MasterSecurity security)
            throws StoreException {
        this.settings = settings;
        this.config = config;
        this.etcd = etcd;
        this.keys = new ClusterKeys(settings.cluster());
        this.endpoint = MasterEndpoint.start(new LeaderApi(this), bindHost, port, security, List.of(new LeaderGate(this::refusal)),
                metrics);
        String address = settings.advertise().orElseGet(() -> defaultHost(bindHost) + ":" + endpoint.port());
        // Before the election: a master elected at once takes the records from the load the copy has begun.
        follow();
        this.election = LeaderElection.start(etcd, keys, address, settings.leaderLease(), settings.etcdTimeout(),
                new LeaderElection.Listener() {
                    @Override
                    public void elected(Fence fence) {
                        lead(fence);
                    }

                    @Override
                    public void deposed(Fence fence, String why) {
                        stopLeading(fence);
                    }
                });
    }

    /** Serves gRPC on {@code bindHost:port} (0: any free port) and joins the election. */
    public static MasterGroup start(GroupSettings settings, MasterConfig config, String bindHost, int port, MasterSecurity security)
            throws StoreException {
        // A watch catching up sends the events of many revisions in one message, each object's record 20 KiB for a 5 GiB
        // file: beyond gRPC's default 4 MiB the stream fails and a follower's copy starts over. Loads page below any limit.
        Client etcd = Client.builder().endpoints(settings.etcd().toArray(URI[]::new)).connectTimeout(settings.etcdTimeout())
                .maxInboundMessageSize(ETCD_MESSAGE_LIMIT).build();
        try {
            return new MasterGroup(settings, config, etcd, bindHost, port, security);
        } catch (StoreException | RuntimeException e) {
            etcd.close();
            throw e;
        }
    }

    private static String defaultHost(String bindHost) {
        if (!bindHost.equals("0.0.0.0") && !bindHost.equals("::")) {
            return bindHost;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** Starts keeping a copy of the records, unless one is kept already or this master is closed. */
    private synchronized void follow() {
        if (copy == null && !closed.get()) {
            copy = FollowerCopy.start(etcd, keys, settings.etcdTimeout(), FollowerCopy.RELOAD_PAUSE);
        }
    }

    private synchronized FollowerCopy takeCopy() {
        FollowerCopy kept = copy;
        copy = null;
        return kept;
    }

    /** The copy kept while following, as of {@code fence}, and stops keeping it: a leader's records are its store's. */
    private Optional<MetadataRecords> stopFollowing(Fence fence) {
        FollowerCopy kept = takeCopy();
        if (kept == null) {
            return Optional.empty();
        }
        try {
            return kept.current(fence);
        } finally {
            kept.close();
        }
    }

    private void lead(Fence fence) {
        long started = System.nanoTime();
        Optional<MetadataRecords> kept = stopFollowing(fence);
        MasterCore core;
        try {
            Runnable onLostAuthority = () -> election.stepDown(fence, "a metadata write was refused or its outcome is unknown");
            EtcdMetadataStore store = kept.isPresent()
                    ? EtcdMetadataStore.over(etcd.getKVClient(), keys, fence, settings.etcdTimeout(), onLostAuthority, kept.get())
                    : EtcdMetadataStore.open(etcd.getKVClient(), keys, fence, settings.etcdTimeout(), onLostAuthority);
            core = MasterCore.open(store, config, metrics);
        } catch (StoreException | RuntimeException | Error e) {
            // An Error too (out of memory while loading): a fence held with no master behind it answers "loading" for good.
            election.stepDown(fence, "it could not load the metadata: " + e);
            follow();
            return;
        }
        // Only a fence deposed meanwhile stops it here. A lease whose sure life ran out while the metadata loaded (a slow
        // first grant on a loaded machine) may be renewed yet: every call checks holds() (refusal) until it is, and the
        // election deposes it if it is not. Requiring holds() here left the election holding the fence with no master
        // behind it, answering "just elected and loading" for good.
        if (!election.isCurrent(fence)) {
            core.close();
            follow();
            return;
        }
        warm = false;
        leading = new Leading(fence, core, System.nanoTime());
        metrics.serving(core);
        metrics.tookOver(kept.isPresent());
        log.info("master {} serves as leader of cluster {}, {} ms after it was elected ({})", election.address(), keys.cluster(),
                (System.nanoTime() - started) / 1_000_000, kept.isPresent() ? "from the copy it kept while following"
                        : "after loading the metadata");
    }

    private void stopLeading(Fence fence) {
        Leading current = leading;
        if (current != null && current.fence() == fence) {
            leading = null;
            metrics.stoppedServing(current.core());
            current.core().close();
        }
        if (leading == null) {
            follow();
        }
    }

    /** Why this master does not answer {@code method} now, naming where to go instead; empty when it does. */
    private Optional<LeaderGate.Refusal> refusal(String method) {
        Leading current = leading;
        LeaderElection election = this.election;
        if (election == null) {
            return Optional.of(new LeaderGate.Refusal("master of cluster " + keys.cluster() + " is starting and has not joined its"
                    + " election yet", Optional.empty()));
        }
        String self = election.address();
        if (current == null || !election.holds(current.fence())) {
            Optional<String> leader = election.leaderAddress();
            if (leader.isPresent() && leader.get().equals(self)) {
                return Optional.of(new LeaderGate.Refusal("master " + self + " of cluster " + keys.cluster()
                        + " was just elected and is loading the metadata", leader));
            }
            return Optional.of(new LeaderGate.Refusal("master " + self + " of cluster " + keys.cluster() + " is not the leader; "
                    + leader.map(l -> "the leader is " + l).orElse("no leader is elected yet"), leader));
        }
        if (!warm && !NODE_CALLS.contains(method)) {
            if (!nodesReportedIn(current)) {
                return Optional.of(new LeaderGate.Refusal("master " + self + " leads cluster " + keys.cluster()
                        + " since a moment and waits for the nodes to report in", Optional.of(self)));
            }
            warm = true;
        }
        return Optional.empty();
    }

    /** Looks at the nodes at most every 50 ms: with a thousand nodes reporting in, once per call would cost a million looks a second. */
    private boolean nodesReportedIn(Leading current) {
        long now = System.nanoTime();
        if (now - current.sinceNanos() >= 2 * config.heartbeatInterval().toNanos()) {
            return true;
        }
        if (now - lastLookAtNodes < 50_000_000L) {
            return false;
        }
        lastLookAtNodes = now;
        return current.core().status().nodes().stream().allMatch(NodeStatus::up);
    }

    /** The master answering as leader, for {@link LeaderApi}. */
    /**
     * The master answering as leader, for {@link LeaderApi}, while its lease holds: a call let through the gate just before
     * the lease ran out (one that waited on the core's lock, or in a process frozen meanwhile) must not be answered from
     * records another leader may have changed since.
     */
    MasterCore core() throws StoreException {
        Leading current = leading;
        LeaderElection election = this.election;
        if (current == null || election == null || !election.holds(current.fence())) {
            throw LeaderGate.steppedDown("master of cluster " + keys.cluster() + " at " + (election == null ? "its start"
                    : election.address()) + " does not lead now", null);
        }
        return current.core();
    }

    /** The masters alive in etcd, with the leader marked. */
    List<MasterMember> members() throws StoreException {
        var response = Etcd.await(etcd.getKVClient().get(Etcd.bytes(keys.members()), GetOption.builder().isPrefix(true).build()),
                settings.etcdTimeout(), "a read of the masters under " + keys.members());
        Optional<String> leader = election.leaderAddress();
        List<MasterMember> members = new ArrayList<>();
        for (KeyValue member : response.getKvs()) {
            String address = Etcd.text(member.getKey()).substring(keys.members().length());
            members.add(MasterMember.live(address, leader.isPresent() && leader.get().equals(address)));
        }
        return members;
    }

    List<EtcdMemberStatus> etcdHealth() {
        return EtcdHealth.check(etcd, settings.etcd(), settings.etcdTimeout());
    }

    public int port() {
        return endpoint.port();
    }

    /** HOST:PORT clients reach this master at. */
    public String address() {
        return election.address();
    }

    /** This master's calls, and while it leads the cluster's gauges, for whoever runs it to expose. */
    public MasterMetrics metrics() {
        return metrics;
    }

    /** True while this master leads and answers. */
    public boolean isLeading() {
        Leading current = leading;
        return current != null && election.holds(current.fence());
    }

    public void awaitTermination() throws InterruptedException {
        endpoint.awaitTermination();
    }

    /** Stops serving, then hands the leadership over (if held) at once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // Stop answering, let the master finish its writes while it still holds the fence, then hand over.
        endpoint.close();
        Leading current = leading;
        if (current != null) {
            leading = null;
            metrics.stoppedServing(current.core());
            current.core().close();
        }
        election.close();
        FollowerCopy kept = takeCopy();
        if (kept != null) {
            kept.close();
        }
        etcd.close();
    }
}

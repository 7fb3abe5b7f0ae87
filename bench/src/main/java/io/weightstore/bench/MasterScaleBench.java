package io.weightstore.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.ha.GroupSettings;
import io.weightstore.store.ha.MasterGroup;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A group of masters under the load of a fleet, simulated in this process: real masters (each with
 * its gRPC endpoint, over a real 3-member etcd) and simulated nodes and loaders that call them over
 * gRPC from virtual threads, as the real ones would. Nodes heartbeat at the interval the master
 * asks for; the catalog is filled with checkpoints through the master's put path; then each loader
 * in a loop stats a checkpoint's manifest, locates (leases) its files, holds them as long as a load
 * takes while renewing the leases, and releases them. Everything is bounded by counts and a duration.
 * Last, the leader hands over, and the time until the group answers again, with every record to
 * load, is measured.
 */
public final class MasterScaleBench {
    private static final long SMALL_FILE = 16 << 10;
    private static final long WEIGHT_FILE = 256L << 20;
    private static final long NODE_CAPACITY = 1L << 40;
    private static final int CLIENTS = 16;
    private static final Duration HAND_OVER_LIMIT = Duration.ofMinutes(5);

    /**
     * What to simulate.
     *
     * @param etcd etcd endpoints to use, or empty to start a 3-member etcd in {@code dir}
     * @param leasesPerFile loaders take, renew and end each lease in a call of its own, as clients did before LocateAll
     */
    public record Settings(int nodes, int checkpoints, int filesPerCheckpoint, int loaders, Duration duration, Duration leaseDuration,
            int masters, String etcd, Path dir, boolean leasesPerFile) {}

    /** What it measured: call latencies while filling the catalog and under the loaders, etcd's size, the hand-over. */
    public record Report(Settings settings, long objects, double fillSeconds, List<Latencies.Summary> fill, double loadSeconds,
            List<Latencies.Summary> load, long loadCycles, long liveKeys, long liveBytes, List<EtcdMemberStatus> etcd, long handOverMs) {}

    private MasterScaleBench() {}

    public static Report run(Settings settings, PrintWriter progress) throws Exception {
        EtcdPeers own = settings.etcd().isEmpty() ? EtcdPeers.start(settings.dir().resolve("etcd-" + UUID.randomUUID()), 3) : null;
        String endpoints = own != null ? own.endpoints() : settings.etcd();
        String cluster = "scale-" + UUID.randomUUID().toString().substring(0, 8);
        List<MasterGroup> masters = new ArrayList<>();
        List<MasterApi> clients = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        try {
            for (int i = 0; i < settings.masters(); i++) {
                masters.add(MasterGroup.start(GroupSettings.of(endpoints, cluster), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure()));
            }
            String list = masters.stream().map(MasterGroup::address).collect(Collectors.joining(","));
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(MasterClients.connect(list, Authentication.insecure()));
            }
            progress.printf("masters %s on etcd %s, cluster %s%n", list, endpoints, cluster);
            progress.flush();

            Latencies fillLatencies = new Latencies();
            AtomicReference<Latencies> beats = new AtomicReference<>(fillLatencies);
            startNodes(settings, clients, beats, threads, stop);
            progress.printf("%d nodes registered and heartbeating; filling %d checkpoints x %d files ...%n", settings.nodes(),
                    settings.checkpoints(), settings.filesPerCheckpoint());
            progress.flush();
            long fillStart = System.nanoTime();
            long objects = fill(settings, clients, fillLatencies, progress);
            double fillSeconds = (System.nanoTime() - fillStart) / 1e9;

            progress.printf("filled %d objects in %.0f s; %d loaders for %d s ...%n", objects, fillSeconds, settings.loaders(),
                    settings.duration().toSeconds());
            progress.flush();
            Latencies loadLatencies = new Latencies();
            AtomicInteger cycles = new AtomicInteger();
            beats.set(loadLatencies);
            long loadStart = System.nanoTime();
            long loadEnd = loadStart + settings.duration().toNanos();
            List<Future<?>> loaders = new ArrayList<>();
            for (int i = 0; i < settings.loaders(); i++) {
                MasterApi api = clients.get(i % clients.size());
                loaders.add(threads.submit(() -> load(settings, api, loadLatencies, loadEnd, cycles)));
            }
            for (var loader : loaders) {
                loader.get();
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;

            long[] live = liveSize(endpoints, cluster);
            List<EtcdMemberStatus> etcd = clients.getFirst().status().etcd();
            progress.printf("loaders done; handing the leadership over with %d objects to load ...%n", objects);
            progress.flush();
            long handOverMs = handOver(masters, clients.getFirst());
            return new Report(settings, objects, fillSeconds, fillLatencies.summarize(fillSeconds), loadSeconds,
                    loadLatencies.summarize(loadSeconds), cycles.get(), live[0], live[1], etcd, handOverMs);
        } finally {
            stop.set(true);
            threads.shutdownNow();
            clients.forEach(MasterApi::close);
            masters.forEach(MasterGroup::close);
            if (own != null) {
                own.close();
            }
        }
    }

    /** Registers the nodes, then each heartbeats into whichever {@link Latencies} {@code beats} holds at the time. */
    private static void startNodes(Settings settings, List<MasterApi> clients, AtomicReference<Latencies> beats, ExecutorService threads,
            AtomicBoolean stop) throws Exception {
        List<Future<?>> registered = new ArrayList<>();
        for (int i = 0; i < settings.nodes(); i++) {
            MasterApi api = clients.get(i % clients.size());
            // An address each, as real nodes have: a new leader takes a node registering where another served before it
            // went down for that node's replacement, and has its copies made again.
            NodeInfo node = new NodeInfo(String.format("sim-node-%04d", i), new Endpoint("127.0." + (i >> 8) + "." + (i & 255), 1), "",
                    new UUID(7, i), NODE_CAPACITY);
            registered.add(threads.submit(() -> {
                Duration interval = beats.get().time("register", () -> api.registerNode(node));
                threads.submit(() -> heartbeat(api, node, interval, beats, stop));
                return null;
            }));
        }
        for (var node : registered) {
            node.get();
        }
    }

    /** Beats as a storage node does: a master that does not know the node (a new leader) has it register again at once. */
    private static void heartbeat(MasterApi api, NodeInfo node, Duration interval, AtomicReference<Latencies> beats, AtomicBoolean stop) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(interval.toMillis()));
            while (!stop.get()) {
                try {
                    NodeOrders orders = beats.get().time("heartbeat", () -> api.heartbeat(NodeReport.alive(node.nodeId())));
                    if (!orders.known()) {
                        beats.get().time("register", () -> api.registerNode(node));
                    }
                } catch (Exception e) {
                    // counted as a failure; a real node retries at its next beat too
                }
                Thread.sleep(interval);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String key(int checkpoint, int file) {
        String id = String.format("weights/ckpt-%05d/", checkpoint);
        return file == 0 ? id + "manifest" : id + "files/" + (file < 4 ? "meta-" + file + ".json" : "model-" + file + ".safetensors");
    }

    private static long size(int file) {
        return file < 4 ? SMALL_FILE : WEIGHT_FILE;
    }

    /** Every object through putStart and putEnd, as an import does (the bytes themselves never reach the master). */
    private static long fill(Settings settings, List<MasterApi> clients, Latencies latencies, PrintWriter progress) throws Exception {
        int total = settings.checkpoints() * settings.filesPerCheckpoint();
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < 64; w++) {
                MasterApi api = clients.get(w % clients.size());
                running.add(writers.submit(() -> {
                    for (int n; (n = next.getAndIncrement()) < total; ) {
                        int checkpoint = n / settings.filesPerCheckpoint();
                        int file = n % settings.filesPerCheckpoint();
                        if (n > 0 && n % 10_000 == 0) {
                            progress.printf("  %d objects ...%n", n);
                            progress.flush();
                        }
                        latencies.time("put (start+end)", () -> {
                            PutGrant grant = api.putStart(key(checkpoint, file), size(file),
                                    PutOptions.defaults().withReplicas(2).withPin(true).withWriter("scale-bench"));
                            return api.putEnd(grant.putId(), checksums(grant));
                        });
                    }
                    return null;
                }));
            }
            for (var writer : running) {
                writer.get();
            }
        }
        return total;
    }

    private static List<BlockCrcs> checksums(PutGrant grant) {
        List<BlockCrcs> crcs = new ArrayList<>();
        for (SliceMeta slice : grant.object().slices()) {
            int blocks = (int) Math.ceilDiv(slice.length(), (long) grant.object().checksumBlockSize());
            crcs.add(BlockCrcs.of(ThreadLocalRandom.current().ints(blocks).toArray()));
        }
        return crcs;
    }

    /**
     * One loader: stat a manifest, lease the files, hold them for 5-15 s renewing at half the lease, release; again.
     * As the client does, the files' leases are taken, renewed when due and ended together, a call each, unless
     * {@link Settings#leasesPerFile}.
     */
    private static Void load(Settings settings, MasterApi api, Latencies latencies, long end, AtomicInteger cycles)
            throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Thread.sleep(random.nextLong(5000)); // loaders arrive over the first seconds, not all at once
        while (System.nanoTime() < end) {
            int checkpoint = random.nextInt(settings.checkpoints());
            List<String> keys = new ArrayList<>();
            for (int file = 1; file < settings.filesPerCheckpoint(); file++) {
                keys.add(key(checkpoint, file));
            }
            List<Lease> leases = new ArrayList<>();
            try {
                latencies.time("stat", () -> api.stat(key(checkpoint, 0)));
                if (settings.leasesPerFile()) {
                    for (String key : keys) {
                        leases.add(latencies.time("locate (lease)", () -> api.locate(key, settings.leaseDuration())).lease());
                    }
                } else {
                    for (Located located : latencies.time("locate all (leases)", () -> api.locateAll(keys, settings.leaseDuration()))) {
                        leases.add(located.lease());
                    }
                }
                long holdUntil = Math.min(end, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(random.nextLong(5000, 15000)));
                // As the client's lease keeper does: each lease renewed once half of it has run, checked every 250 ms.
                long halfMs = settings.leaseDuration().toMillis() / 2;
                while (System.nanoTime() < holdUntil) {
                    Thread.sleep(Duration.ofMillis(Math.min(250, Math.max(1, (holdUntil - System.nanoTime()) / 1_000_000))));
                    List<Integer> due = new ArrayList<>();
                    for (int i = 0; i < keys.size(); i++) {
                        if (System.currentTimeMillis() >= leases.get(i).expiresAt().toEpochMilli() - halfMs) {
                            due.add(i);
                        }
                    }
                    renew(settings, api, latencies, keys, leases, due);
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                Thread.sleep(100); // counted as a failure; try another checkpoint
            }
            release(settings, api, latencies, keys, leases);
            cycles.incrementAndGet();
        }
        return null;
    }

    private static void renew(Settings settings, MasterApi api, Latencies latencies, List<String> keys, List<Lease> leases, List<Integer> due)
            throws Exception {
        if (due.isEmpty()) {
            return;
        }
        if (settings.leasesPerFile()) {
            for (int i : due) {
                String key = keys.get(i);
                long id = leases.get(i).id();
                leases.set(i, latencies.time("renew (lease)", () -> api.renewLease(key, id, settings.leaseDuration())));
            }
            return;
        }
        List<HeldLease> held = due.stream().map(i -> new HeldLease(keys.get(i), leases.get(i).id())).toList();
        List<Optional<Lease>> renewed = latencies.time("renew together", () -> api.renewLeases(held, settings.leaseDuration()));
        for (int d = 0; d < due.size(); d++) {
            int i = due.get(d);
            leases.set(i, renewed.get(d).orElseThrow(() -> new IllegalStateException("lease on " + keys.get(i) + " was lost")));
        }
    }

    /** Ends the leases taken; a failure is counted, and the leases run out by themselves. */
    private static void release(Settings settings, MasterApi api, Latencies latencies, List<String> keys, List<Lease> leases) {
        List<HeldLease> held = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            held.add(new HeldLease(keys.get(i), leases.get(i).id()));
        }
        if (held.isEmpty()) {
            return;
        }
        if (!settings.leasesPerFile()) {
            try {
                latencies.time("release together", () -> {
                    api.releaseLeases(held);
                    return null;
                });
            } catch (Exception e) {
                // counted
            }
            return;
        }
        for (HeldLease lease : held) {
            try {
                latencies.time("release", () -> {
                    api.releaseLease(lease.key(), lease.leaseId());
                    return null;
                });
            } catch (Exception e) {
                // counted
            }
        }
    }

    /** Keys and bytes (keys and values) the cluster holds in etcd now. */
    private static long[] liveSize(String endpoints, String cluster) throws Exception {
        String prefix = "/weightstore/" + cluster + "/";
        byte[] endBytes = prefix.getBytes(StandardCharsets.UTF_8);
        endBytes[endBytes.length - 1]++;
        ByteSequence end = ByteSequence.from(endBytes);
        long keys = 0;
        long bytes = 0;
        try (Client etcd = Client.builder().endpoints(endpoints.split(",")).build()) {
            ByteSequence from = ByteSequence.from(prefix, StandardCharsets.UTF_8);
            while (true) {
                GetResponse page = etcd.getKVClient().get(from, GetOption.builder().withRange(end).withLimit(1000).build())
                        .get(30, TimeUnit.SECONDS);
                for (KeyValue kv : page.getKvs()) {
                    keys++;
                    bytes += kv.getKey().size() + kv.getValue().size();
                }
                if (!page.isMore() || page.getKvs().isEmpty()) {
                    return new long[] {keys, bytes};
                }
                from = ByteSequence.from((page.getKvs().getLast().getKey().toString(StandardCharsets.UTF_8) + "\0")
                        .getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * Closes the leader (it hands over at once) and times until the group answers a stat again, for up
     * to {@link #HAND_OVER_LIMIT}: longer than one call's budget, since the next leader loads every record.
     */
    private static long handOver(List<MasterGroup> masters, MasterApi client) throws Exception {
        MasterGroup leader = masters.stream().filter(MasterGroup::isLeading).findFirst().orElseThrow();
        long start = System.nanoTime();
        leader.close();
        while (true) {
            try {
                client.stat(key(0, 0));
                return (System.nanoTime() - start) / 1_000_000;
            } catch (StoreException e) {
                if (System.nanoTime() - start > HAND_OVER_LIMIT.toNanos()) {
                    throw e;
                }
            }
        }
    }
}

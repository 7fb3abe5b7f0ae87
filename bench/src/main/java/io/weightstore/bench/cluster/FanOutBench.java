package io.weightstore.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.weightstore.bench.WorkDirectory;
import io.weightstore.weights.ByteSizes;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * {@code bench fanout}: many engines loading one checkpoint at once on a fleet whose every engine
 * host also runs a storage node, the layout where replica counts decide how many bytes cross the NICs.
 *
 * <p>Host 0 runs the master alone; hosts 1..H each run a node and, in each step, a loader. The steps
 * change only where the copies are, and the same H loaders load the whole checkpoint at once:
 * <ol>
 *   <li>the count the checkpoint was imported with ({@code --replicas}, 2 by default);
 *   <li>{@code --replicas auto}: the master adds copies while the loaders hold read leases; a first
 *       wave of loaders, then, once the master's copies are done, a second;
 *   <li>a copy on every node ({@code model replicate --replicas H}): every load a same-host load;
 *   <li>back at the imported count, one loader with {@code --cache-local} on host 1, which has its
 *       node keep a copy; then that loader again, alone, once the copy is made (a same-host load
 *       now); then all H loaders, which read from host 1's copy too: fan-out from a peer.
 * </ol>
 */
public final class FanOutBench {
    static final String CHECKPOINT_ID = "fanout-bench";
    private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(20);

    /** What to run: {@code hosts} engine hosts (each a node and a loader), plus host 0 for the master. */
    public record Settings(int hosts, String nicRate, String size, int replicas, String sliceSize, String copyRate, int connections,
            boolean barrier, String prefix, Path out) {
        public Settings {
            if (hosts < 2) {
                throw new IllegalArgumentException("--hosts must be >= 2, found " + hosts);
            }
            if (replicas < 1 || replicas >= hosts) {
                throw new IllegalArgumentException("--replicas must be in 1.." + (hosts - 1) + " (below --hosts " + hosts
                        + ", so that more copies can be made), found " + replicas);
            }
            if (connections < 1) {
                throw new IllegalArgumentException("--connections must be >= 1, found " + connections);
            }
            for (var s : Map.of("--size", size, "--slice-size", sliceSize, "--copy-rate", copyRate).entrySet()) {
                if (ByteSizes.parse(s.getValue()) < 1) {
                    throw new IllegalArgumentException(s.getKey() + " must be positive, found " + s.getValue());
                }
            }
        }
    }

    private final Settings settings;
    private final Path logs;
    private HostBed bed;
    private BedCluster cluster;
    private List<Host> engines;
    private long checkpointBytes;
    private PhaseRunner phases;

    public FanOutBench(Settings settings) {
        this.settings = settings;
        this.logs = settings.out().resolve("fanout-logs").toAbsolutePath();
    }

    /**
     * Makes the bed, runs the steps and removes the bed (also when this fails: {@link HostBed} removes
     * it from a shutdown hook if the JVM is stopped).
     *
     * @throws HostBedUnavailableException when a bed cannot be made here, with the reason
     */
    public FanOutReport run() throws Exception {
        long sizeBytes = ByteSizes.parse(settings.size());
        // Each engine host's tmpfs holds a pool big enough for a copy of everything, and host 0 the source.
        long tmpfs = 2 * sizeBytes + (1L << 30);
        bed = HostBed.create(HostBed.Options.hosts(settings.hosts() + 1).withRate(settings.nicRate()).withPrefix(settings.prefix())
                .withTmpfsSize((tmpfs >> 20) + "m"));
        try {
            WorkDirectory.recreate(logs);
            Host masterHost = bed.host(0);
            engines = bed.hosts().subList(1, bed.size());
            progress("bed %s: master on host 0, a node and a loader on each of hosts 1-%d; NICs at %s", bed.prefix(), settings.hosts(),
                    settings.nicRate());
            progress("synthesizing a %s checkpoint on host 0", settings.size());
            SynthesizedCheckpoint checkpoint = SynthesizedCheckpoint.make(bed, masterHost, bed.privateDir().resolve("checkpoint"),
                    settings.size());
            checkpointBytes = checkpoint.bytes();
            cluster = BedCluster.start(bed, masterHost, engines, checkpointBytes + (256L << 20), List.of("--slice-size",
                    settings.sliceSize(), "--copy-rate", settings.copyRate(), "--readers-per-replica", "1", "--auto-cool-down", "1h"),
                    logs);
            progress("importing %s with %d replicas", ByteSizes.format(checkpointBytes), settings.replicas());
            cluster.importCheckpoint(masterHost, checkpoint.dir(), CHECKPOINT_ID, settings.replicas(), settings.connections());
            phases = new PhaseRunner(logs, checkpointBytes);
            return new FanOutReport(bed.size(), bed.rateBitsPerSecond(), Runtime.getRuntime().availableProcessors(), checkpointBytes,
                    checkpoint.files().size(), settings.replicas(), settings.sliceSize(), settings.barrier(), steps());
        } finally {
            if (cluster != null) {
                cluster.close();
            }
            bed.close();
        }
    }

    private List<FanOutReport.Step> steps() throws Exception {
        int h = engines.size();
        int r = settings.replicas();
        List<FanOutReport.Step> steps = new ArrayList<>();
        steps.add(step("replicas " + r, "imported at " + r + " copies", engines, false));

        replicate("auto", "--min", Integer.toString(r));
        steps.add(step("auto, first wave", "--replicas auto: the master adds copies while the loaders hold leases", engines, false));
        awaitNoCopiesUnderWay();
        steps.add(step("auto, second wave", "after the first wave's copies were made", engines, false));

        replicate(Integer.toString(h), "--wait");
        steps.add(step("replicas " + h, "a copy on every node", engines, false));

        replicate(Integer.toString(r), "--wait");
        Host first = engines.getFirst();
        steps.add(step("cache-local, first", "back at " + r + " copies; host " + first.index() + " loads with --cache-local",
                List.of(first), true));
        awaitLocalCopy(first);
        steps.add(step("cache-local, again", "host " + first.index() + " again, its node holding a copy of everything", List.of(first),
                false));
        steps.add(step("fan-out from a peer", "all " + h + " loaders; host " + first.index() + "'s copy is read by the others too",
                engines, false));
        return steps;
    }

    private FanOutReport.Step step(String name, String setting, List<Host> loaders, boolean cacheLocal) throws Exception {
        Placement before = placement();
        progress("%s: %d loader(s) at once; %.2f copies per slice, %.2f of the checkpoint on each loader's own node", name,
                loaders.size(), before.copiesPerSlice(), before.meanLocalFraction(loaders));
        // A single loader needs no barrier: there is no other to wait for.
        boolean barrier = settings.barrier() && loaders.size() > 1;
        String slug = name.replaceAll("[^a-z0-9]+", "-");
        Phase phase = phases.run(slug, loaders, engines, barrier, j -> load(cacheLocal), ClusterBench::loadReport);
        return FanOutReport.Step.of(name, setting, before.copiesPerSlice(), before.meanLocalFraction(loaders), phase, checkpointBytes);
    }

    private List<String> load(boolean cacheLocal) {
        List<String> args = new ArrayList<>(List.of("load", "weightstore://" + CHECKPOINT_ID, "--store", cluster.master(), "--json",
                "--connections", Integer.toString(settings.connections())));
        if (cacheLocal) {
            args.add("--cache-local");
        }
        return cluster.cli(args.toArray(String[]::new));
    }

    private void replicate(String count, String... flags) throws Exception {
        progress("model replicate --replicas %s %s", count, String.join(" ", flags));
        List<String> args = new ArrayList<>(List.of("model", "replicate", CHECKPOINT_ID, "--replicas", count, "--store", cluster.master(),
                "--timeout", SETTLE_TIMEOUT.toMinutes() + "m"));
        args.addAll(List.of(flags));
        cluster.check(cluster.masterHost(), args.toArray(String[]::new));
    }

    private void awaitNoCopiesUnderWay() throws Exception {
        progress("waiting for the master's copies to be made");
        await(() -> copiesUnderWay() == 0, "the master's copies of " + CHECKPOINT_ID + " to end");
    }

    private void awaitLocalCopy(Host host) throws Exception {
        progress("waiting for host %d's node to hold a copy of everything", host.index());
        await(() -> placement().localFraction(host) >= 1.0, "host " + host.index() + "'s node to hold a copy of every slice");
    }

    private int copiesUnderWay() throws Exception {
        JsonNode report = BedCluster.json(cluster.check(cluster.masterHost(), "model", "inspect", CHECKPOINT_ID, "--store",
                cluster.master(), "--json"));
        return report.get("copies").get("copiesUnderWay").asInt();
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("waited " + SETTLE_TIMEOUT.toMinutes() + " minutes for " + what);
            }
            Thread.sleep(1000);
        }
    }

    /** Where the checkpoint's slices are now: the master's objects, and which host each node is on. */
    private Placement placement() throws IOException, InterruptedException, TimeoutException {
        Map<String, Host> hostOfNode = cluster.hostsByNode();
        JsonNode objects = BedCluster.json(cluster.check(cluster.masterHost(), "store", "ls", "--store", cluster.master(), "--json"));
        long slices = 0;
        long copies = 0;
        Map<Integer, Long> bytesOnHost = new HashMap<>();
        for (JsonNode object : objects) {
            if (!object.get("key").asText().contains("/" + CHECKPOINT_ID + "/files/")) {
                continue;
            }
            for (JsonNode slice : object.get("slices")) {
                slices++;
                for (JsonNode node : slice.get("nodes")) {
                    copies++;
                    Host host = hostOfNode.get(node.asText());
                    if (host != null) {
                        bytesOnHost.merge(host.index(), slice.get("length").asLong(), Long::sum);
                    }
                }
            }
        }
        return new Placement((double) copies / slices, bytesOnHost, checkpointBytes);
    }

    /** How many copies each slice has on average, and the bytes of the checkpoint on each host's node. */
    private record Placement(double copiesPerSlice, Map<Integer, Long> bytesOnHost, long checkpointBytes) {
        double localFraction(Host host) {
            return (double) bytesOnHost.getOrDefault(host.index(), 0L) / checkpointBytes;
        }

        double meanLocalFraction(List<Host> hosts) {
            return hosts.stream().mapToDouble(this::localFraction).average().orElse(0);
        }
    }

    private static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "bench fanout: " + format + "%n", args);
    }
}

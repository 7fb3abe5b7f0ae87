package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore store status}: nodes, liveness, capacity and use. */
@Command(name = "status", mixinStandardHelpOptions = true, description = {
    "Show the nodes (up, DOWN or draining; capacity, used; bytes served,",
    "scrubbed and copied) and the object count; room held back because a write",
    "grant may still reach it (whose, and until when); how the replicas stand: OK,",
    "DEGRADED (slices lacking copies, copies on a DOWN node, or bad copies, and",
    "nothing under way) or REPAIRING (the copies under way: from which node to",
    "which, why, and how far they got); for a group of masters also the masters",
    "(which one leads; one given in --store that is not alive in etcd, asked",
    "directly: UNREACHABLE or UNLISTED, with why) and the health of each etcd member."})
final class StoreStatusCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--json", description = "Print the status as JSON.")
    private boolean json;

    /** The JSON shape. */
    record StatusView(String store, long objects, long pendingPuts, long capacity, long used, HeldView held, List<NodeStatus> nodes,
            ReplicationView replication, List<MasterView> masters, List<EtcdMemberStatus> etcd) {}

    /** A master in JSON: {@code leader} as before, and how it stands, with why when it is not up. */
    record MasterView(String address, boolean leader, MasterMember.State state, String error) {
        static MasterView of(MasterMember m) {
            return new MasterView(m.address(), m.leader(), m.state(), m.error());
        }
    }

    /** Room held back in JSON; {@code othersUntil} is null when nothing is held for other writers. */
    record HeldView(long forCaller, long forOthers, Instant othersUntil) {
        static HeldView of(Room.Held held) {
            return new HeldView(held.forCaller(), held.forOthers(), held.othersUntil().orElse(null));
        }
    }

    /** The replicas in JSON: the master's counts, with the state and progress worked out. */
    record ReplicationView(ReplicationStatus.State state, int slicesBelowTarget, int slicesWaiting, int slicesWithoutGoodCopy,
            int badCopies, long bytesToCopy, long bytesCopied, List<CopyInFlight> copies, Duration repairAfter) {
        static ReplicationView of(ReplicationStatus r) {
            return new ReplicationView(r.state(), r.slicesBelowTarget(), r.slicesWaiting(), r.slicesWithoutGoodCopy(), r.badCopies(),
                    r.bytesToCopy(), r.bytesCopied(), r.copies(), r.repairAfter());
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient client = selection.open()) {
            // One call to the leader: the status carries the room held back, as the caller's room would count it.
            StoreStatus status = client.statusWithEveryMaster();
            Room.Held held = status.held();
            if (json) {
                JsonOutput.print(out, new StatusView(selection.describe(), status.objects(), status.pendingPuts(), status.capacity(),
                        status.used(), HeldView.of(held), status.nodes(), ReplicationView.of(status.replication()),
                        status.masters().stream().map(MasterView::of).toList(), status.etcd()));
                return ExitCodes.OK;
            }
            out.printf("%s: %d objects, %s of %s used, %d puts in progress%n", selection.describe(), status.objects(),
                    ByteSizes.format(status.used()), ByteSizes.format(status.capacity()), status.pendingPuts());
            if (held.total() > 0) {
                out.printf("held back: %s of what is used belongs to no object: it was freed (a put aborted, an object deleted or"
                        + " replaced soon after it was written) while a write grant could still reach it%s%s%n",
                        ByteSizes.format(held.total()),
                        held.othersUntil().map(until -> "; free again by " + until.truncatedTo(ChronoUnit.SECONDS)).orElse(""),
                        held.forCaller() > 0 ? "; " + ByteSizes.format(held.forCaller()) + " of it is yours to put into at once" : "");
            }
            out.printf("replicas: %s%n", describe(status.replication()));
            Table table = new Table("NODE", "ENDPOINT", "STATE", "CAPACITY", "USED", "USE%", "SERVED", "SCRUBBED", "COPIED", "POOL")
                    .alignRight("CAPACITY", "USED", "USE%", "SERVED", "SCRUBBED", "COPIED");
            for (NodeStatus node : status.nodes()) {
                table.row(node.nodeId(), node.endpoint(), (node.up() ? "up" : "DOWN") + (node.draining() ? ", draining" : ""),
                        ByteSizes.format(node.capacity()), ByteSizes.format(node.used()),
                        String.format(Locale.ROOT, "%.1f", node.capacity() == 0 ? 0.0 : 100.0 * node.used() / node.capacity()),
                        ByteSizes.format(node.load().bytesServed()), ByteSizes.format(node.load().bytesScrubbed()),
                        ByteSizes.format(node.load().bytesCopied()), node.info().poolPath());
            }
            table.print(out);
            if (!status.replication().copies().isEmpty()) {
                out.println();
                Table copies = new Table("COPYING", "SLICE", "FROM", "TO", "WHY", "DONE").alignRight("SLICE", "DONE");
                for (CopyInFlight copy : status.replication().copies()) {
                    copies.row(copy.key(), copy.slice(), copy.from(), copy.to(), copy.reason(),
                            ByteSizes.format(copy.bytesDone()) + " of " + ByteSizes.format(copy.length()));
                }
                copies.print(out);
            }
            if (!status.masters().isEmpty()) {
                out.println();
                Table masters = new Table("MASTER", "STATE");
                status.masters().forEach(m -> masters.row(m.address(), switch (m.state()) {
                    case LEADER -> "leader";
                    case FOLLOWER -> "follower";
                    case UNREACHABLE, UNLISTED -> m.state() + ": " + m.error();
                }));
                masters.print(out);
            }
            if (!status.etcd().isEmpty()) {
                out.println();
                Table etcd = new Table("ETCD", "HEALTH", "ROLE", "VERSION", "DB").alignRight("DB");
                for (EtcdMemberStatus member : status.etcd()) {
                    etcd.row(member.endpoint(), member.healthy() ? "healthy" : "UNHEALTHY: " + member.error(),
                            member.healthy() ? (member.leader() ? "leader" : "follower") : "", member.version(),
                            member.healthy() ? ByteSizes.format(member.dbSizeBytes()) : "");
                }
                etcd.print(out);
            }
        }
        return ExitCodes.OK;
    }

    private static String describe(ReplicationStatus r) {
        String counts = r.slicesBelowTarget() + " slices below their count, " + r.slicesWaiting() + " with a copy on a node that is"
                + " DOWN (copied again elsewhere after " + r.repairAfter().toSeconds() + "s), " + r.slicesWithoutGoodCopy()
                + " without a good copy, " + r.badCopies() + " bad copies";
        return switch (r.state()) {
            case OK -> "OK (every slice has its copies; a node down more than " + r.repairAfter().toSeconds()
                    + "s has its copies made again elsewhere)";
            case DEGRADED -> "DEGRADED: " + counts + "; no copy under way";
            case UNREADABLE -> "UNREADABLE (reads of a slice without a good copy fail): " + counts + "; " + r.copies().size()
                    + (r.copies().size() == 1 ? " copy" : " copies") + " under way";
            case REPAIRING -> String.format(Locale.ROOT, "REPAIRING: %d %s under way, %s of %s copied (%d%%); %s", r.copies().size(),
                    r.copies().size() == 1 ? "copy" : "copies",
                    ByteSizes.format(r.bytesCopied()), ByteSizes.format(r.bytesToCopy()),
                    r.bytesToCopy() == 0 ? 0 : 100 * r.bytesCopied() / r.bytesToCopy(), counts);
        };
    }
}

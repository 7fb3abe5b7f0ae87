package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
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
    "Show the nodes (up or down, capacity, used) and the object count;",
    "for a group of masters also the masters (which one leads) and the health of each etcd member."})
final class StoreStatusCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--json", description = "Print the status as JSON.")
    private boolean json;

    /** The JSON shape. */
    record StatusView(String store, long objects, long pendingPuts, long capacity, long used, List<NodeStatus> nodes,
            List<MasterMember> masters, List<EtcdMemberStatus> etcd) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient client = selection.open()) {
            StoreStatus status = client.status();
            if (json) {
                JsonOutput.print(out, new StatusView(selection.describe(), status.objects(), status.pendingPuts(), status.capacity(),
                        status.used(), status.nodes(), status.masters(), status.etcd()));
                return ExitCodes.OK;
            }
            out.printf("%s: %d objects, %s of %s used, %d puts in progress%n", selection.describe(), status.objects(),
                    ByteSizes.format(status.used()), ByteSizes.format(status.capacity()), status.pendingPuts());
            Table table = new Table("NODE", "ENDPOINT", "STATE", "CAPACITY", "USED", "USE%", "POOL").alignRight("CAPACITY", "USED", "USE%");
            for (NodeStatus node : status.nodes()) {
                table.row(node.nodeId(), node.endpoint(), node.up() ? "up" : "DOWN", ByteSizes.format(node.capacity()),
                        ByteSizes.format(node.used()),
                        String.format(Locale.ROOT, "%.1f", node.capacity() == 0 ? 0.0 : 100.0 * node.used() / node.capacity()),
                        node.info().poolPath());
            }
            table.print(out);
            if (!status.masters().isEmpty()) {
                out.println();
                Table masters = new Table("MASTER", "ROLE");
                status.masters().forEach(m -> masters.row(m.address(), m.leader() ? "leader" : "follower"));
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
}

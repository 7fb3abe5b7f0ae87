package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store node forget}: drops a node that is gone for good, and the replicas it held. */
@Command(name = "forget", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Drop a node that is gone for good (its pool lost, its machine retired) from",
            "the master: it leaves 'store status', and its replicas leave every object's",
            "metadata; the master then copies those slices again onto the other",
            "nodes (no need to wait out --repair-after). Puts in progress with a",
            "copy on it are aborted.",
            "Refused while the node holds the only copy of some slice (the message names",
            "one: remove what it alone holds, or bring the node back with its pool).",
            "Unless --force, also refused while the node is up, or while every other copy",
            "of some slice it holds is on a node whose pool is lost or was found bad (a",
            "copy on a node that is down counts: that node may come back with its pool)."
        })
final class StoreNodeForgetCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "The node's id, as 'store status' lists it.")
    private String nodeId;

    @Option(names = "--force",
            description = "Forget the node although it is up, or although some slice's other copies are on lost pools or bad (never"
                    + " when it holds a slice's only copy). Its replicas are dropped all the same; if it keeps running it registers"
                    + " again as a new, empty node.")
    private boolean force;

    @Option(names = "--json", description = "Print what was dropped as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        NodeForgotten forgotten;
        try (StoreClient client = selection.open()) {
            if (!force) {
                // The master refuses this too; asking first lets the message name the flag.
                Optional<NodeStatus> up = client.status().nodes().stream().filter(n -> n.nodeId().equals(nodeId) && n.up()).findFirst();
                if (up.isPresent()) {
                    throw new StoreException(StoreException.Code.FAILED_PRECONDITION, "node " + nodeId + " is up (last heartbeat "
                            + up.get().lastHeartbeat() + "); stop it first, or add --force to forget it anyway");
                }
            }
            forgotten = client.forgetNode(nodeId, force);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, forgotten);
        } else {
            out.printf("forgot node %s: %d replicas dropped from %d objects, %d puts in progress aborted%n", forgotten.nodeId(),
                    forgotten.replicas(), forgotten.objects(), forgotten.putsAborted());
            if (forgotten.replicas() > 0) {
                out.println("the master copies those slices again onto the other nodes; 'weightstore store status' shows how far");
            }
            out.flush();
        }
        return ExitCodes.OK;
    }
}

package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.client.StoreClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store node drain}: moves every replica off a node so that it can leave. */
@Command(name = "drain", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Move every replica off a node so that it can leave: the master has",
            "other nodes copy each of its slices (node to node, at the master's",
            "--copy-rate), commits each new copy once it is written and checked, and",
            "only then drops the drained node's. Nothing new is placed on a draining",
            "node; it keeps serving reads until its last copy has moved. 'store",
            "status' shows it as draining. Once it holds nothing, stop it and 'store",
            "node forget ID'. Run again to see how many replicas it still holds."
        })
final class StoreNodeDrainCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "The node's id, as 'store status' lists it.")
    private String nodeId;

    @Option(names = "--cancel", description = "Stop draining the node: it takes new copies again; copies already moved stay moved.")
    private boolean cancel;

    @Option(names = "--wait", description = "Wait until the node holds no replica, showing how many are left.")
    private boolean await;

    @Option(names = "--timeout", defaultValue = "1h", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --wait: give up waiting (exit 1; the drain goes on) after this long. Default: ${DEFAULT-VALUE}.")
    private Duration timeout;

    @Option(names = "--json", description = "Print the node's drain state as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        if (cancel && (await || Waiting.timeoutGiven(spec))) {
            throw new IllegalArgumentException("--wait and --timeout wait for a drain to end; with --cancel there is nothing to"
                    + " wait for");
        }
        Waiting.checkTimeoutWaits(spec, await);
        NodeDrain drain;
        try (StoreClient client = selection.open()) {
            drain = client.drainNode(nodeId, cancel);
            if (await) {
                drain = Waiting.until("drain " + nodeId, timeout, () -> {
                    // Asking again is how a drain is watched: it changes nothing on a node already draining.
                    NodeDrain now = client.drainNode(nodeId, false);
                    return new Waiting.Look<>(now, now.replicasLeft() == 0, now.replicasLeft() + " replicas left on it");
                });
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, drain);
        } else if (!drain.draining()) {
            out.printf("node %s is not draining; it holds %d replicas%n", drain.nodeId(), drain.replicasLeft());
        } else if (drain.replicasLeft() == 0) {
            out.printf("node %s is drained: it holds no replica; stop it, then 'weightstore store node forget %s'%n", drain.nodeId(),
                    drain.nodeId());
        } else {
            out.printf("node %s is draining: %d replicas left on it (watch with 'store status', or add --wait)%n", drain.nodeId(),
                    drain.replicasLeft());
        }
        return ExitCodes.OK;
    }
}

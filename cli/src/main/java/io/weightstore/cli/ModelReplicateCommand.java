package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointReplicator;
import io.weightstore.weights.ReplicaHealth;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore model replicate}: raises or lowers a checkpoint's replica count while it is online. */
@Command(name = "replicate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Set how many copies of each slice of a READY checkpoint's files the",
            "master keeps, while engines load it. New copies go node to node (never",
            "through this client) at the master's --copy-rate, and a file's metadata",
            "names a copy only once it is written and checked; copies beyond the",
            "count are dropped, never the last good one. With --replicas auto the",
            "master adds copies while many readers hold a file (its",
            "--readers-per-replica), within the nodes' room, and trims them once the",
            "readers are gone. The manifest keeps its own count. Needs an admin on a",
            "secure cluster."
        })
final class ModelReplicateCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "ID", description = "Checkpoint id.")
    private String id;

    @Option(names = "--replicas", required = true, paramLabel = "N|auto",
            description = "Copies of each slice: a number from 1 to the nodes up (and not being drained), or 'auto'.")
    private String replicas;

    @Option(names = "--min", paramLabel = "N",
            description = "With --replicas auto: the count the master never goes below. Default: the largest count a file has now.")
    private Integer min;

    @Option(names = "--wait", description = "Wait until every slice has its copies (and no more), showing the copies under way.")
    private boolean await;

    @Option(names = "--timeout", defaultValue = "1h", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --wait: give up waiting (exit 1; the copies go on) after this long. Default: ${DEFAULT-VALUE}.")
    private Duration timeout;

    @Option(names = "--json", description = "Print what was set (and with --wait, how the copies ended) as JSON.")
    private boolean json;

    /** The JSON shape. */
    record Report(CheckpointReplicator.Result set, ReplicaHealth copies) {}

    @Override
    public Integer call() throws Exception {
        Waiting.checkTimeoutWaits(spec, await);
        boolean auto = replicas.equals("auto");
        Optional<Integer> count = auto ? Optional.ofNullable(min) : Optional.of(parseCount(replicas));
        if (!auto && min != null) {
            throw new IllegalArgumentException("--min goes with --replicas auto; with a number the count is that number");
        }
        count.ifPresent(n -> {
            if (n < 1) {
                throw new IllegalArgumentException((auto ? "--min" : "--replicas") + " must be at least 1, found " + n);
            }
        });
        CheckpointId checkpoint = CheckpointId.of(id);
        PrintWriter out = spec.commandLine().getOut();
        try (StoreClient store = selection.open()) {
            CheckpointReplicator replicator = new CheckpointReplicator(new Catalog(store));
            CheckpointReplicator.Result set = replicator.run(checkpoint, count, auto);
            if (!json) {
                out.printf("%s: %d of %d files now keep %s%s%n", id, set.filesChanged(), set.files(),
                        set.auto() ? "at least " + set.replicas() + " copies, more while readers crowd them (auto)"
                                : set.replicas() + (set.replicas() == 1 ? " copy" : " copies"),
                        set.filesChanged() < set.files() ? " (the others had it already)" : "");
                out.flush();
            }
            ReplicaHealth health = replicator.health(checkpoint);
            if (await) {
                health = Waiting.until("replicate " + id, timeout, () -> {
                    ReplicaHealth now = replicator.health(checkpoint);
                    return new Waiting.Look<>(now, now.settled(), now.describe());
                });
            }
            if (json) {
                JsonOutput.print(out, new Report(set, health));
            } else if (await) {
                out.printf("%s copies: %s%n", id, health.describe());
            } else {
                out.printf("the master copies and trims in the background; 'weightstore model inspect %s' shows how far, or add --wait%n",
                        id);
            }
        }
        return ExitCodes.OK;
    }

    private static int parseCount(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--replicas must be a number or 'auto', found '" + text + "'");
        }
    }
}

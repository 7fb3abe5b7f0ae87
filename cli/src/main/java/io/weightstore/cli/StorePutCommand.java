package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store put}: one local file as one object. */
@Command(name = "put", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Write a local file as one object; its slices go to the nodes in parallel.")
final class StorePutCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(index = "0", paramLabel = "KEY", description = "Object key (UTF-8, 1-4096 bytes, no control characters).")
    private String key;

    @Parameters(index = "1", paramLabel = "FILE", description = "Local file to upload.")
    private Path file;

    @Option(names = "--replicas", defaultValue = "1", paramLabel = "N", description = "Copies on distinct nodes. Default: ${DEFAULT-VALUE}.")
    private int replicas;

    @Option(names = "--slice-size", converter = ByteSizeConverter.class,
            paramLabel = "SIZE", description = "Slice size (a multiple of 1M). Default: the master's (64M).")
    private Long sliceSize;

    @Option(names = "--replace", description = "Overwrite an existing object of this key.")
    private boolean replace;

    @Option(names = "--pin", description = "Exempt the object from eviction.")
    private boolean pin;

    @Option(names = "--json", description = "Print the stored object as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        PutOptions options = new PutOptions(replicas, sliceSize == null ? 0 : sliceSize, replace, pin, "");
        if (Files.isDirectory(file)) {
            throw new ParameterException(spec.commandLine(), "FILE " + file + " is a directory; store put writes one file as one object"
                    + " (model import takes a checkpoint's directory)");
        }
        if (!Files.exists(file)) {
            throw new ParameterException(spec.commandLine(), "FILE " + file + " does not exist");
        }
        long size = Files.size(file);
        long start = System.nanoTime();
        ObjectMeta stored;
        try (StoreClient client = selection.open(); ProgressBar progress = new ProgressBar("put " + key)) {
            // The master refuses it too, but only after the upload was planned, and in its own words rather than the flag's.
            if (!replace && client.find(key).isPresent()) {
                throw new StoreException(StoreException.Code.ALREADY_EXISTS, "object " + key + " exists; use --replace to overwrite it");
            }
            stored = client.put(key, file, options, progress);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (json) {
            JsonOutput.print(spec.commandLine().getOut(), ObjectView.of(stored));
        } else {
            spec.commandLine().getOut().printf("stored %s: %s in %d slices x %d replicas, %.2f s (%.2f GB/s)%n", key,
                    ByteSizes.format(size), stored.slices().size(), stored.replicas(), seconds, size / seconds / 1e9);
        }
        return ExitCodes.OK;
    }
}

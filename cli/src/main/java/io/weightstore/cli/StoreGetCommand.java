package io.weightstore.cli;

import io.weightstore.cli.output.ProgressBar;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore store get}: one object into a local file, read straight into the mapped file. */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = "Read an object into a local file; every block is checked against its checksum. OUT appears only when complete.")
final class StoreGetCommand implements Callable<Integer> {
    private static final long CHUNK = 256L << 20;

    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(index = "0", paramLabel = "KEY", description = "Object key.")
    private String key;

    @Parameters(index = "1", paramLabel = "OUT", description = "Local file to write.")
    private Path out;

    @Override
    public Integer call() throws Exception {
        Path directory = out.toAbsolutePath().getParent();
        if (Files.isDirectory(out) || !Files.isDirectory(directory)) {
            throw new ParameterException(spec.commandLine(), "OUT " + out + (Files.isDirectory(out)
                    ? " is a directory; name the file to write, such as " + out.resolve(Path.of(key).getFileName())
                    : ": its directory " + directory + " does not exist"));
        }
        Path partial = out.resolveSibling(out.getFileName() + ".partial");
        long start = System.nanoTime();
        long size;
        try (StoreClient client = selection.open(); ObjectReader object = client.open(key)) {
            size = object.size();
            try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Arena arena = Arena.ofShared();
                    ProgressBar progress = new ProgressBar("get " + key, size)) {
                if (size > 0) {
                    channel.write(ByteBuffer.allocate(1), size - 1);
                    MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                    for (long done = 0; done < size; done += CHUNK) {
                        long length = Math.min(CHUNK, size - done);
                        object.read(new Range(done, length), file.asSlice(done, length));
                        progress.advanced(length);
                    }
                    file.force();
                }
            }
            Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        spec.commandLine().getOut().printf("wrote %s: %s in %.2f s (%.2f GB/s)%n", out, ByteSizes.format(size), seconds,
                size / seconds / 1e9);
        return ExitCodes.OK;
    }
}

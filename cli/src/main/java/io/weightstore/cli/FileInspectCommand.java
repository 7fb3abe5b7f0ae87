package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.format.FileRangeSource;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.weights.ByteSizes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore file inspect PATH}: the validated header of one safetensors file. */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = {
            "Validate one safetensors file and list its tensors and metadata.",
            "An invalid file prints the broken rule on stderr and exits with 1."
        })
final class FileInspectCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "The .safetensors file to inspect.")
    private Path path;

    @Option(names = "--json", description = "Print the header as JSON instead of a table.")
    private boolean json;

    /** The JSON shape of one tensor. */
    record TensorView(String name, String dtype, List<Long> shape, List<Long> dataOffsets, long bytes) {
        static TensorView of(TensorInfo t) {
            return new TensorView(t.name(), t.dtype().name(), t.shape(), List.of(t.begin(), t.end()), t.byteSize());
        }
    }

    /** The JSON shape of the whole file. */
    record FileView(String path, long fileLength, long headerLength, Map<String, String> metadata, int tensorCount,
            List<TensorView> tensors) {}

    @Override
    public Integer call() throws IOException {
        SafetensorsHeader header;
        try (FileRangeSource source = FileRangeSource.open(path)) {
            header = SafetensorsHeaderParser.read(source);
        } catch (io.weightstore.format.SafetensorsFormatException e) {
            throw e.inFile(path.toString());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new FileView(path.toString(), header.fileLength(), header.headerLength(),
                    header.metadata(), header.tensors().size(), header.tensors().stream().map(TensorView::of).toList()));
            return ExitCodes.OK;
        }
        out.printf("%s: %d tensors, %s (%d bytes), header %d bytes%n", path, header.tensors().size(),
                ByteSizes.format(header.fileLength()), header.fileLength(), header.headerLength());
        header.metadata().forEach((key, value) -> out.printf("  metadata %s = %s%n", key, value));
        Table table = new Table("NAME", "DTYPE", "SHAPE", "BEGIN", "END", "BYTES").alignRight("BEGIN", "END", "BYTES");
        for (TensorInfo t : header.tensors()) {
            table.row(t.name(), t.dtype(), t.shape(), t.begin(), t.end(), t.byteSize());
        }
        table.print(out);
        return ExitCodes.OK;
    }
}

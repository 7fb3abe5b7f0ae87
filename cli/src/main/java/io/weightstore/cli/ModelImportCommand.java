package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.format.ExcludedFiles;
import io.weightstore.format.HubCacheRepository;
import io.weightstore.format.HubCacheSnapshot;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ColumnLayoutPlan;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.ImportResult;
import io.weightstore.weights.loader.ShardPlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore model import}: a local checkpoint directory into the store. */
@Command(name = "import", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Validate a checkpoint directory (HF layout, or a snapshot in the Hugging Face hub cache), then store every file as a",
            "pinned object, with a manifest.",
            "Invalid input is refused before anything is written. The checkpoint is READY only once every file is stored;",
            "an interrupted import, run again, skips the files already stored with the same size and hash."
        })
final class ModelImportCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--checkpoint-id", required = true, paramLabel = "ID", description = "Id in the store: [A-Za-z0-9][A-Za-z0-9._-]{0,254}.")
    private String id;

    @Option(names = "--model-id", paramLabel = "ORG/NAME", description = "The model this checkpoint is of. Default, for a Hugging"
            + " Face cache snapshot: the repository the cache names; required for any other directory.")
    private String modelId;

    @Option(names = "--revision", paramLabel = "REV", description = "Revision of the model. Default: the commit of a Hugging Face"
            + " cache snapshot, else main. For a hub cache repository as --source: the ref (main by default, or refs/pr/N as"
            + " pr/N) or commit whose snapshot to import, recorded as that snapshot's commit.")
    private String revision;

    @Option(names = "--source", required = true, paramLabel = "DIR", description = "Checkpoint directory to import: the model's"
            + " files, or a Hugging Face hub cache snapshot (.../models--ORG--NAME/snapshots/COMMIT, as hf download leaves it),"
            + " whose links into the repository's blobs are followed and whose weight blobs must hash to the SHA-256 that names"
            + " them, or such a repository (.../models--ORG--NAME), whose snapshot --revision names.")
    private Path source;

    @Option(names = "--exclude", paramLabel = "PATTERN", description = "Leave out the source's files whose path (relative to it, '/'"
            + " separated) matches PATTERN, as the Hugging Face client's --exclude matches: * any characters, '/' too, ? one,"
            + " [seq] one of a set, a trailing / a whole directory; repeatable. For a copy no engine reads, such as a Llama's"
            + " original/ PyTorch files: --exclude original/. Excluded files are neither validated nor stored; a pattern that"
            + " matches no file is warned of. Default: none for a new checkpoint; for a --replace, the patterns of the version"
            + " it replaces.")
    private List<String> exclude = new ArrayList<>();

    @Option(names = "--no-exclude", description = "For a --replace: store every file of the source, leaving out none of what the"
            + " version it replaces excluded.")
    private boolean noExclude;

    @Option(names = "--replicas", paramLabel = "N", description = "Copies of each slice on distinct nodes, for the files this import"
            + " writes. Default: 1 for a new checkpoint; a --replace without it writes the files that changed with the count (and"
            + " auto) the version before has, so a 'model replicate' outlives the replace. Files a replace keeps keep their count.")
    private Integer replicas;

    @Option(names = "--replace", description = "Import a new version of a READY checkpoint of the same id: readers keep the"
            + " version before until the new one is READY, and keep it if the replace fails.")
    private boolean replace;

    @Option(names = "--parallel-files", defaultValue = "2", paramLabel = "N", description = "Files uploaded at once. Default: ${DEFAULT-VALUE}.")
    private int parallelFiles;

    @Option(names = "--tp-layout", split = ",", paramLabel = "N", description = "Also lay out, beside each safetensors file, the"
            + " tensors --plan splits by columns, for N tensor-parallel ranks (2, 4 or 8; repeatable, or N,M): each rank's column"
            + " shards end to end, so that a load at --tp-size N reads each as one range instead of a piece of every row. Costs"
            + " the memory of those tensors once more per N (a third of a Llama's weights). Default: none; a --replace writes"
            + " only the layouts it is given.")
    private List<Integer> tpLayouts = new ArrayList<>();

    @Option(names = "--plan", defaultValue = "llama", paramLabel = "FILE|PRESET", description = "With --tp-layout: the shard"
            + " plan whose column-split tensors are laid out, a preset (llama, qwen2, mistral) or a JSON file of rules, as the"
            + " loads will use. Default: ${DEFAULT-VALUE}.")
    private String plan;

    @Option(names = "--json", description = "Print the resulting manifest as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        // A missing directory is a wrong argument, as an empty one is: both are usage errors, told apart by their messages.
        if (!Files.exists(source)) {
            throw new IllegalArgumentException("--source " + source + " does not exist");
        }
        if (!Files.isDirectory(source)) {
            throw new IllegalArgumentException("--source " + source + " is not a directory; give the checkpoint's directory");
        }
        Path real = source.toRealPath();
        Optional<Path> snapshot = HubCacheRepository.snapshotOf(real, revision);
        if (snapshot.isPresent()) {
            // --revision chose the snapshot; what is recorded is the commit it is, as for a snapshot given itself.
            source = snapshot.get();
            real = source;
            revision = null;
        }
        Optional<HubCacheSnapshot> hub = HubCacheSnapshot.of(real);
        if (modelId == null) {
            if (hub.isEmpty()) {
                // The cache given whole is refused as the import would refuse it, rather than asked for a model id.
                HubCacheRepository.requireNoCacheAbove(real);
                throw new IllegalArgumentException("--model-id is required: --source " + source + " is no Hugging Face cache snapshot"
                        + " (.../models--ORG--NAME/snapshots/COMMIT) to take it from");
            }
            modelId = hub.get().modelId();
        }
        if (revision == null) {
            revision = hub.map(HubCacheSnapshot::commit).orElse("main");
        }
        if (noExclude && !exclude.isEmpty()) {
            throw new IllegalArgumentException("--no-exclude and --exclude contradict each other; give one");
        }
        if (noExclude && !replace) {
            throw new IllegalArgumentException("--no-exclude is for a --replace: an import of a new checkpoint leaves out nothing"
                    + " unless --exclude says so");
        }
        ImportResult result;
        ImportRequest request = new ImportRequest(CheckpointId.of(id), modelId, revision, source,
                replicas == null ? OptionalInt.empty() : OptionalInt.of(replicas), replace, parallelFiles,
                exclude.isEmpty() && !noExclude ? Optional.empty() : Optional.of(exclude))
                .withColumnLayouts(columnLayouts());
        try (StoreClient store = selection.open(); ProgressBar bar = new ProgressBar("import " + id)) {
            result = new CheckpointImporter(new Catalog(store)).run(request, bar);
        }
        List<String> patterns = result.manifest().excluded();
        if (replace && request.exclude().isEmpty() && !patterns.isEmpty()) {
            spec.commandLine().getErr().printf("weightstore: leaving out %s, as the version replaced did (--no-exclude stores"
                    + " every file)%n", String.join(" ", patterns));
        }
        for (String unmatched : ExcludedFiles.of(patterns).unmatched(result.excludedFiles())) {
            spec.commandLine().getErr().printf("weightstore: warning: exclude pattern %s matched no file of %s%n", unmatched, source);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, result);
            return ExitCodes.OK;
        }
        out.printf("imported %s (%s@%s) into %s: READY, %d files, %s; %d uploaded, %d already stored%s; %.2f s (%.2f GB/s)%n",
                id, modelId, revision, selection.describe(), result.manifest().files().size(),
                ByteSizes.format(result.manifest().totalBytes()), result.uploadedFiles(), result.skippedFiles(),
                result.excludedFiles().isEmpty() ? "" : ", " + result.excludedFiles().size() + " excluded", result.seconds(),
                result.uploadedBytes() / result.seconds() / 1e9);
        return ExitCodes.OK;
    }

    /** The layouts asked for, a wrong value named with its flag. */
    private ColumnLayoutPlan columnLayouts() throws IOException {
        if (tpLayouts.isEmpty()) {
            if (spec.commandLine().getParseResult().hasMatchedOption("--plan")) {
                throw new IllegalArgumentException("--plan chooses the tensors --tp-layout lays out; give --tp-layout N with it");
            }
            return ColumnLayoutPlan.NONE;
        }
        ShardPlan shardPlan;
        try {
            shardPlan = ShardPlan.resolve(plan);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--plan: " + e.getMessage(), e);
        }
        try {
            return new ColumnLayoutPlan(tpLayouts, shardPlan);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tp-layout: " + e.getMessage(), e);
        }
    }
}

package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.DistributedContext;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.Config;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import com.github.tjake.jlama.safetensors.WeightLoader;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a Jlama model from {@code weightstore://ID} or from a local directory, the same way: Jlama's
 * own {@code ModelSupport.loadModel}, with config and tokenizer from the materialized metadata
 * directory and, for the store, weights from {@link StoreWeightLoader}.
 */
public final class JlamaModels {
    private static final Logger log = LoggerFactory.getLogger(JlamaModels.class);

    private JlamaModels() {}

    /**
     * A loaded model and what it was loaded from; closing it closes the checkpoint source too, and
     * deletes the model's key-value cache pages.
     */
    public static final class Loaded implements AutoCloseable {
        private final AbstractModel model;
        private final String reference;
        private final Optional<CheckpointSource> source;
        private final double loadSeconds;
        private final KvCacheDirectory kvCache;

        private Loaded(AbstractModel model, String reference, Optional<CheckpointSource> source, double loadSeconds,
                KvCacheDirectory kvCache) {
            this.model = model;
            this.reference = reference;
            this.source = source;
            this.loadSeconds = loadSeconds;
            this.kvCache = kvCache;
        }

        public AbstractModel model() {
            return model;
        }

        public String reference() {
            return reference;
        }

        public Optional<CheckpointSource> source() {
            return source;
        }

        public double loadSeconds() {
            return loadSeconds;
        }

        @Override
        public void close() {
            // Each closes whatever the one before threw: a source left open would hold its leases until they ran out.
            try {
                model.close();
            } finally {
                try {
                    source.ifPresent(CheckpointSource::close);
                } finally {
                    kvCache.close();
                }
            }
        }
    }

    /**
     * Refuses, before anything is opened, a reference that names no model: a store URI other than
     * {@code weightstore://CHECKPOINT_ID} (a {@link CheckpointException} {@code INVALID}), or a directory
     * without a config.json (an {@link IllegalArgumentException}); both are the caller's to correct.
     */
    public static void checkReference(String reference) throws CheckpointException {
        if (CheckpointSource.isStoreUri(reference)) {
            CheckpointSource.storeUri(reference);
        } else {
            modelDirectory(reference);
        }
    }

    private static Path modelDirectory(String reference) {
        Path dir = Path.of(reference);
        if (!Files.isRegularFile(dir.resolve("config.json"))) {
            throw new IllegalArgumentException("--model " + reference + " is neither weightstore://ID nor a model directory"
                    + " with a config.json");
        }
        return dir;
    }

    public static Loaded load(String reference, LoadOptions options) throws IOException {
        return load(reference, options, Optional.empty(), source -> {});
    }

    public static Loaded load(String reference, LoadOptions options, Optional<Function<Config, DistributedContext>> distributed)
            throws IOException {
        return load(reference, options, distributed, source -> {});
    }

    /**
     * @param distributed for tensor parallelism: builds the context of this process's shard from the
     *     model's config, as Jlama's own distributed loading does
     * @param opened told of the checkpoint's source before any weight is read, on the thread that opens
     *     it, so that a server can show the load's progress while it runs
     */
    public static Loaded load(String reference, LoadOptions options, Optional<Function<Config, DistributedContext>> distributed,
            Consumer<CheckpointSource> opened) throws IOException {
        long start = System.nanoTime();
        KvCacheDirectory kvCache = KvCacheDirectory.create();
        try {
            return load(reference, options, distributed, opened, kvCache, start);
        } catch (IOException | RuntimeException | Error e) {
            // An Error too (out of memory while Jlama builds, say): the directory would outlive the load otherwise.
            try {
                kvCache.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private static Loaded load(String reference, LoadOptions options, Optional<Function<Config, DistributedContext>> distributed,
            Consumer<CheckpointSource> opened, KvCacheDirectory kvCache, long start) throws IOException {
        if (!CheckpointSource.isStoreUri(reference)) {
            Path dir = modelDirectory(reference);
            AbstractModel model = loadModel(reference, dir, kvCache, distributed, SafeTensorSupport::loadWeights);
            return new Loaded(model, reference, Optional.empty(), (System.nanoTime() - start) / 1e9, kvCache);
        }
        URI uri = CheckpointSource.storeUri(reference);
        Optional<Path> leftBefore = CheckpointSource.metadataLeftBefore(CheckpointSource.checkpointId(uri), options)
                .filter(dir -> Files.isRegularFile(dir.resolve("config.json")));
        CheckpointOpening opening = CheckpointOpening.start(uri, options, distributed.isEmpty(), opened);
        try {
            Optional<AbstractModel> onFilesLeftBefore = leftBefore.isPresent()
                    ? loadOnMetadataLeftBefore(reference, leftBefore.get(), opening, kvCache, distributed) : Optional.empty();
            AbstractModel model = onFilesLeftBefore.isPresent() ? onFilesLeftBefore.get()
                    : loadOnMetadataWritten(reference, opening, kvCache, distributed);
            CheckpointSource source = opening.source();
            try {
                // Files seen in place were checked while Jlama built the model; one that failed is read instead, from a good copy.
                List<String> failed = source.awaitChecks();
                if (!failed.isEmpty()) {
                    AbstractModel onFailedFiles = model;
                    model = null;
                    onFailedFiles.close();
                    log.warn("weight files {} failed their check in the pools on this host, or could not be checked there; loading them"
                            + " through the store", failed);
                    model = rebuild(reference, opening.metadata().dir(), kvCache, distributed, source);
                }
            } catch (IOException | RuntimeException | Error e) {
                if (model != null) {
                    closeAfter(model, e);
                }
                throw e;
            }
            return new Loaded(model, reference, Optional.of(source), (System.nanoTime() - start) / 1e9, kvCache);
        } catch (OpeningFailed e) {
            opening.abandon(e.getCause());
            throw e.getCause();
        } catch (IOException | RuntimeException | Error e) {
            opening.abandon(e);
            throw e;
        }
    }

    /** The model built again on weights read from the store: the files seen in place that failed their check are read. */
    private static AbstractModel rebuild(String reference, Path metadata, KvCacheDirectory kvCache,
            Optional<Function<Config, DistributedContext>> distributed, CheckpointSource source) throws IOException {
        StoreWeightLoader again = new StoreWeightLoader(source, distributed.isEmpty());
        try {
            return loadModel(reference, metadata, kvCache, distributed, dir -> again);
        } catch (RuntimeException | Error e) {
            // Its read-ahead would go on reading from a source the failure closes.
            closeAfter(again, e);
            throw e;
        }
    }

    /** Closes {@code resource} on the way out of {@code failure}, which keeps any failure of the close. */
    static void closeAfter(AutoCloseable resource, Throwable failure) {
        try {
            resource.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Jlama reads config and tokenizer from the files an earlier load of this checkpoint wrote, in
     * {@code leftBefore}, while the checkpoint opens; empty when they were not this version's. Before
     * Jlama gets its weight loader, the opening has written this version's set of metadata files, each
     * compared with the manifest's SHA-256: the model is built on {@code leftBefore} only when that is the
     * set's directory and the opening changed nothing in it. Files there are only ever replaced whole
     * (written aside, then renamed), and only by the same set's bytes.
     */
    private static Optional<AbstractModel> loadOnMetadataLeftBefore(String reference, Path leftBefore, CheckpointOpening opening,
            KvCacheDirectory kvCache, Optional<Function<Config, DistributedContext>> distributed) throws IOException {
        try {
            return Optional.of(loadModel(reference, leftBefore, kvCache, distributed, dir -> {
                if (fromOpening(() -> opening.metadataIsNot(leftBefore))) {
                    throw new StaleMetadata();
                }
                return fromOpening(opening::weights);
            }));
        } catch (StaleMetadata e) {
            return Optional.empty();
        } catch (OpeningFailed e) {
            throw e;
        } catch (RuntimeException e) {
            // Jlama could not read what was there: if it was not this version's, read this version's.
            boolean rewritten;
            try {
                rewritten = opening.metadataIsNot(leftBefore);
            } catch (IOException openingFailed) {
                openingFailed.addSuppressed(e);
                throw openingFailed;
            }
            if (rewritten) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Jlama reads config and tokenizer once the opening has written them. */
    private static AbstractModel loadOnMetadataWritten(String reference, CheckpointOpening opening, KvCacheDirectory kvCache,
            Optional<Function<Config, DistributedContext>> distributed) throws IOException {
        return loadModel(reference, opening.metadata().dir(), kvCache, distributed, dir -> fromOpening(opening::weights));
    }

    /** One of the opening's answers, asked for inside Jlama's weight-loader function, which cannot throw an IOException. */
    private static <T> T fromOpening(OpeningAnswer<T> answer) {
        try {
            return answer.get();
        } catch (IOException e) {
            throw new OpeningFailed(e);
        }
    }

    @FunctionalInterface
    private interface OpeningAnswer<T> {
        T get() throws IOException;
    }

    /** The metadata files Jlama started on were not the checkpoint's; unwinds Jlama's reading of them. */
    private static final class StaleMetadata extends RuntimeException {
        StaleMetadata() {
            super(null, null, false, false);
        }
    }

    /** Carries the opening's failure out through Jlama, which takes its weight loader from a function. */
    private static final class OpeningFailed extends RuntimeException {
        OpeningFailed(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    /**
     * Builds the model; a store's loader is told when it is built, as Jlama keeps its loader for the
     * model's life and never closes it: what it read ahead is then the model's alone. This is the one
     * place Jlama builds a model, so the one place its failures on a model's files become a {@link
     * ModelLoadException} that names {@code reference}.
     */
    private static AbstractModel loadModel(String reference, Path dir, KvCacheDirectory kvCache,
            Optional<Function<Config, DistributedContext>> distributed, Function<File, WeightLoader> weights) {
        ModelBuild build = new ModelBuild(reference, dir);
        AtomicReference<WeightLoader> made = new AtomicReference<>();
        AbstractModel model;
        try {
            model = ModelSupport.loadModel(AbstractModel.InferenceType.FULL_GENERATION, dir.toFile(), kvCache.file(), DType.F32,
                    DType.I8, Optional.empty(), Optional.empty(), distributed.map(build::ours), build.weights(d -> {
                        WeightLoader loader = weights.apply(d);
                        made.set(loader);
                        return loader;
                    }));
        } catch (RuntimeException e) {
            throw build.failed(e);
        }
        try {
            build.checkFits(model);
        } catch (ModelLoadException e) {
            model.close();
            throw e;
        }
        if (made.get() instanceof StoreWeightLoader store) {
            store.modelBuilt();
        }
        return model;
    }
}

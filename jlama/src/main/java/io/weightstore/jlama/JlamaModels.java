package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.DistributedContext;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.Config;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import com.github.tjake.jlama.safetensors.WeightLoader;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
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
            try {
                model.close();
                source.ifPresent(CheckpointSource::close);
            } finally {
                kvCache.close();
            }
        }
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
     * @param opened told of the checkpoint's source before any weight is read, so that a server can
     *     show the load's progress while it runs
     */
    public static Loaded load(String reference, LoadOptions options, Optional<Function<Config, DistributedContext>> distributed,
            Consumer<CheckpointSource> opened) throws IOException {
        long start = System.nanoTime();
        KvCacheDirectory kvCache = KvCacheDirectory.create();
        try {
            return load(reference, options, distributed, opened, kvCache, start);
        } catch (IOException | RuntimeException e) {
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
            Path dir = Path.of(reference);
            if (!Files.isRegularFile(dir.resolve("config.json"))) {
                throw new IllegalArgumentException("--model " + reference + " is neither weightstore://ID nor a model directory"
                        + " with a config.json");
            }
            AbstractModel model = loadModel(dir, kvCache, distributed, SafeTensorSupport::loadWeights);
            return new Loaded(model, reference, Optional.empty(), (System.nanoTime() - start) / 1e9, kvCache);
        }
        CheckpointSource source = CheckpointSource.open(URI.create(reference), options);
        try {
            opened.accept(source);
            Path metadata = source.materializeMetadata().dir();
            StoreWeightLoader weights = new StoreWeightLoader(source, distributed.isEmpty());
            AbstractModel model = loadModel(metadata, kvCache, distributed, dir -> weights);
            // Files seen in place were checked while Jlama built the model; one that failed is read instead, from a good copy.
            List<String> failed = source.awaitChecks();
            if (!failed.isEmpty()) {
                model.close();
                log.warn("weight files {} failed their check in the pools on this host; loading them from a good copy", failed);
                StoreWeightLoader again = new StoreWeightLoader(source, distributed.isEmpty());
                model = loadModel(metadata, kvCache, distributed, dir -> again);
            }
            return new Loaded(model, reference, Optional.of(source), (System.nanoTime() - start) / 1e9, kvCache);
        } catch (IOException | RuntimeException e) {
            source.close();
            throw e;
        }
    }

    private static AbstractModel loadModel(Path dir, KvCacheDirectory kvCache, Optional<Function<Config, DistributedContext>> distributed,
            Function<File, WeightLoader> weights) {
        return ModelSupport.loadModel(AbstractModel.InferenceType.FULL_GENERATION, dir.toFile(), kvCache.file(), DType.F32, DType.I8,
                Optional.empty(), Optional.empty(), distributed, weights);
    }
}

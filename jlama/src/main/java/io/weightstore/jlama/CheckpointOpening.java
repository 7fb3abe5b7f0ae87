package io.weightstore.jlama;

import io.weightstore.store.client.Futures;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A checkpoint opened on a thread of its own: the store, the manifest, the metadata files written to
 * the cache directory, then the weight files and the {@link StoreWeightLoader}. In a fresh JVM
 * this takes about half a second of one core, and so does Jlama's reading of config and tokenizer;
 * neither needs the other until Jlama asks for its weight loader, so they run side by side.
 *
 * <p>Whoever starts an opening owns what it opens: {@link #source()} once a model is built on it,
 * {@link #abandon} otherwise.
 */
final class CheckpointOpening {
    private final CompletableFuture<CheckpointSource> source = new CompletableFuture<>();
    private final CompletableFuture<CheckpointSource.Materialized> metadata = new CompletableFuture<>();
    private final CompletableFuture<StoreWeightLoader> weights = new CompletableFuture<>();
    private final Thread thread;
    /** What the thread opened, for {@link #abandon} to close once the thread has ended, whoever stopped waiting. */
    private CheckpointSource openedSource;
    private StoreWeightLoader openedWeights;

    private CheckpointOpening(URI uri, LoadOptions options, boolean wholeModel, Consumer<CheckpointSource> opened) {
        thread = Thread.ofPlatform().daemon().name("weightstore-open " + uri.getAuthority())
                .start(() -> run(uri, options, wholeModel, opened));
    }

    /**
     * @param opened told of the source on the opening's thread, before any weight is read
     */
    static CheckpointOpening start(URI uri, LoadOptions options, boolean wholeModel, Consumer<CheckpointSource> opened) {
        return new CheckpointOpening(uri, options, wholeModel, opened);
    }

    private void run(URI uri, LoadOptions options, boolean wholeModel, Consumer<CheckpointSource> opened) {
        try {
            openedSource = CheckpointSource.openMetadataFirst(uri, options, metadata::complete);
            source.complete(openedSource);
            opened.accept(openedSource);
            openedWeights = new StoreWeightLoader(openedSource, wholeModel);
            weights.complete(openedWeights);
        } catch (Throwable e) {
            source.completeExceptionally(e);
            metadata.completeExceptionally(e);
            weights.completeExceptionally(e);
        }
    }

    CheckpointSource source() throws IOException {
        return Futures.await(source);
    }

    /** What writing the metadata files did; waits for it. */
    CheckpointSource.Materialized metadata() throws IOException {
        return Futures.await(metadata);
    }

    /**
     * Whether {@code read}, a directory an engine read metadata files from, did not hold this version's:
     * the opening wrote them elsewhere, or replaced or removed any file there; waits for it.
     */
    boolean metadataIsNot(Path read) throws IOException {
        CheckpointSource.Materialized written = metadata();
        return !written.dir().equals(read) || written.changed();
    }

    /** The weight loader, once the weight files are open; each call returns the same one. */
    StoreWeightLoader weights() throws IOException {
        return Futures.await(weights);
    }

    /**
     * For a load that failed: waits for the opening to end and closes what it opened, adding any
     * failure of that to {@code failure}.
     */
    void abandon(Throwable failure) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        // First the loader: Jlama's other layer loads, which a failed one does not stop, then read nothing more.
        if (openedWeights != null) {
            JlamaModels.closeAfter(openedWeights, failure);
        }
        if (openedSource != null) {
            JlamaModels.closeAfter(openedSource, failure);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

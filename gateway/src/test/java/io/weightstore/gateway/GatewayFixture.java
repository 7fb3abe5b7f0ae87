package io.weightstore.gateway;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.Manifest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * An embedded store in a temporary directory holding one synthetic checkpoint (three safetensors
 * shards of about 8 MiB, config, tokenizer, and a note whose name needs encoding) and one that is
 * still importing, served by two gateways on loopback: one that wants signatures, one that serves
 * anyone. Chunks are 64 KiB, so every large read goes through many rounds of the double buffer.
 */
final class GatewayFixture implements AutoCloseable {
    static final String ACCESS_KEY = "gateway-test-reader";
    static final String SECRET_KEY = "Zq8/t+EST-secret-key-4242";
    static final String CHECKPOINT = "tiny-llama";
    static final String HIDDEN = "half-imported";
    static final String TAMPERED = "manifest-of-another";
    static final String ODD_NAME = "notes/a b+c ü.txt";
    static final String EMPTY_NAME = "empty.txt";
    static final int CHUNK = 64 << 10;

    final Path source;
    final StoreClient store;
    final Manifest manifest;
    final S3Gateway signed;
    final S3Gateway anonymous;

    private GatewayFixture(Path source, StoreClient store, Manifest manifest, S3Gateway signed, S3Gateway anonymous) {
        this.source = source;
        this.store = store;
        this.manifest = manifest;
        this.signed = signed;
        this.anonymous = anonymous;
    }

    static GatewayFixture start(Path tmp) throws IOException {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.forSize(24L << 20, DType.BF16, 9L << 20, 7), source, b -> {});
        Files.createDirectories(source.resolve("notes"));
        Files.writeString(source.resolve(ODD_NAME), "a file whose name needs percent-encoding\n");
        Files.createFile(source.resolve(EMPTY_NAME));
        StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults());
        Catalog catalog = new Catalog(store);
        Manifest manifest = new CheckpointImporter(catalog).run(new ImportRequest(new CheckpointId(CHECKPOINT), "org/tiny-llama", "main",
                source, 1, false, 2), Progress.NONE).manifest();
        // A checkpoint caught mid-import: its manifest only, as an importer writes it first.
        Manifest importing = new Manifest(Manifest.SCHEMA_VERSION, new CheckpointId(HIDDEN), "org/hidden", "main", "test",
                CheckpointStatus.IMPORTING, Instant.now(), Instant.now(), 0, null, "", 0, List.of());
        store.put("weights/" + HIDDEN + "/manifest", importing.toJson(), PutOptions.defaults());
        // A READY manifest that names another importer than the one the master recorded as its writer: never to be served.
        Manifest tampered = new Manifest(Manifest.SCHEMA_VERSION, new CheckpointId(TAMPERED), "org/manifest-of-another", "main", "test",
                CheckpointStatus.READY, Instant.now(), Instant.now(), manifest.totalBytes(), null, "writer mallory", 0, manifest.files());
        store.put("weights/" + TAMPERED + "/manifest", tampered.toJson(), PutOptions.defaults());
        Access keys = Access.key(ACCESS_KEY, SECRET_KEY);
        S3Gateway signed = S3Gateway.start(config(keys, GatewayConfig.DEFAULT_IDLE_TIMEOUT, GatewayConfig.DEFAULT_REQUEST_HEAD_TIMEOUT),
                store);
        S3Gateway anonymous = S3Gateway.start(config(Access.anonymousOnly(), GatewayConfig.DEFAULT_IDLE_TIMEOUT,
                GatewayConfig.DEFAULT_REQUEST_HEAD_TIMEOUT), store);
        return new GatewayFixture(source, store, manifest, signed, anonymous);
    }

    static GatewayConfig config(Access access, Duration idleTimeout, Duration requestHeadTimeout) {
        return config(access, idleTimeout, requestHeadTimeout, GatewayConfig.DEFAULT_SEND_TIMEOUT);
    }

    static GatewayConfig config(Access access, Duration idleTimeout, Duration requestHeadTimeout, Duration sendTimeout) {
        return new GatewayConfig(GatewayConfig.DEFAULT_HOST, 0, GatewayConfig.DEFAULT_BUCKET, access, 4, 8, CHUNK, idleTimeout,
                requestHeadTimeout, sendTimeout, GatewayConfig.DEFAULT_MAX_CONNECTIONS, CongestionControl.CUBIC);
    }

    String endpoint() {
        return "http://127.0.0.1:" + signed.port();
    }

    URI uri(String pathAndQuery) {
        return URI.create(endpoint() + pathAndQuery);
    }

    URI anonymousUri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + anonymous.port() + pathAndQuery);
    }

    /** The checkpoint's files on local disk, as their keys name them. */
    List<String> keys() {
        return manifest.files().stream().map(f -> CHECKPOINT + "/" + f.path()).sorted().toList();
    }

    Path local(String relativePath) {
        return source.resolve(relativePath);
    }

    @Override
    public void close() {
        signed.close();
        anonymous.close();
        store.close();
    }
}

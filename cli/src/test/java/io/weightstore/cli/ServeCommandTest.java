package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weightstore serve} as a process: where it listens, its key, and what it logs. */
class ServeCommandTest {
    private static final String SECRET = "sk-cli-secret-4242";
    private static final Pattern SERVING = Pattern.compile("serving .* on (http://[^/\\s]+)/v1");

    @TempDir
    Path tmp;

    /** The tiny synthetic model, written under the test's directory. */
    private Path tinyModel() throws IOException {
        Path model = tmp.resolve("tiny");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 9), model, b -> {});
        return model;
    }

    @Test
    void helpShowsEveryFlagAndNeverTheKey() throws Exception {
        CliProcess help = CliProcess.start(tmp.resolve("help.log"), Map.of(ServeCommand.API_KEY_ENV, SECRET), "serve", "--help");
        assertThat(help.await()).isZero();
        assertThat(help.output()).contains("--model", "--port", "--bind", "--served-model-name", "--max-concurrent", "--max-queue",
                "--client-timeout", "--api-key=KEY", "--insecure", ServeCommand.API_KEY_ENV, "Default: 127.0.0.1").doesNotContain(SECRET);
    }

    @Test
    void servesOnLoopbackByDefaultWithTheKeyFromTheEnvironmentAndLogsEachRequest() throws Exception {
        Path model = tinyModel();
        Path log = tmp.resolve("serve.log");
        CliProcess serve = CliProcess.start(log, Map.of(ServeCommand.API_KEY_ENV, SECRET), "serve", "--model", model.toString(),
                "--port", "0");
        try {
            String base = awaitServing(serve);
            assertThat(base).startsWith("http://127.0.0.1:");
            HttpClient http = HttpClient.newHttpClient();
            assertThat(get(http, base + "/health", null).statusCode()).isEqualTo(200);
            assertThat(get(http, base + "/ready", null).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = get(http, base + "/v1/models", null);
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.body()).contains("\"code\":\"invalid_api_key\"");
            HttpResponse<String> models = get(http, base + "/v1/models", SECRET);
            assertThat(models.statusCode()).isEqualTo(200);
            assertThat(models.body()).contains("\"id\":\"tiny\"");
            assertThat(get(http, base + "/metrics", null).body()).contains("weightstore_serve_requests_total");
        } finally {
            serve.stop();
        }
        assertThat(serve.output()).contains("GET /v1/models 401", "GET /v1/models 200", "GET /health 200", "API key required")
                .doesNotContain(SECRET).doesNotContain("Exception");
    }

    @Test
    void everyInterfaceWithoutAKeyIsRefusedUnlessToldInsecure() throws Exception {
        Path model = tinyModel();
        CliRun refused = CliRun.of("serve", "--model", model.toString(), "--port", "0", "--bind", "0.0.0.0");
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("without an API key", "--api-key", ServeCommand.API_KEY_ENV, "--insecure");

        CliProcess serve = CliProcess.start(tmp.resolve("insecure.log"), Map.of(), "serve", "--model", model.toString(), "--port", "0",
                "--bind", "0.0.0.0", "--insecure");
        try {
            awaitServing(serve);
        } finally {
            serve.stop();
        }
        assertThat(serve.output()).contains("warning: --insecure on 0.0.0.0");
    }

    /** An unset variable passed as the key ({@code --api-key "$KEY"}) must not turn the key off, even on loopback. */
    @Test
    void anEmptyApiKeyIsRefusedRatherThanTakenForNoKey() throws Exception {
        Path model = tinyModel();

        CliRun refused = CliRun.of("serve", "--model", model.toString(), "--port", "0", "--api-key", "");

        assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("the API key must not be empty");
    }

    @Test
    void badArgumentsAreRefusedBeforeItListensOrOpensTheStore() throws Exception {
        Path model = tinyModel();
        Path home = tmp.resolve("home");
        Map<String, String> env = Map.of("WEIGHTSTORE_HOME", home.toString());
        CliProcess nowhere = CliProcess.start(tmp.resolve("nowhere.log"), env, "serve", "--model",
                tmp.resolve("nowhere").toString(), "--port", "0");
        CliProcess noId = CliProcess.start(tmp.resolve("no-id.log"), env, "serve", "--model", "weightstore://", "--port", "0");
        CliProcess unnamed = CliProcess.start(tmp.resolve("unnamed.log"), env, "serve", "--model", model.toString(),
                "--served-model-name", "", "--port", "0");
        CliProcess unnamedFromStore = CliProcess.start(tmp.resolve("unnamed-store.log"), env, "serve", "--model",
                "weightstore://tiny", "--served-model-name", "", "--port", "0");
        for (CliProcess refused : new CliProcess[] {nowhere, noId, unnamed, unnamedFromStore}) {
            assertThat(refused.await()).as(refused.output()).isEqualTo(ExitCodes.USAGE);
            assertThat(refused.output()).doesNotContain("listening");
        }
        assertThat(nowhere.output()).contains("is neither weightstore://ID nor a model directory");
        assertThat(noId.output()).contains("expected weightstore://CHECKPOINT_ID, found 'weightstore://' (no checkpoint id)");
        assertThat(unnamed.output()).contains("served model name must be 1 to 256");
        assertThat(unnamedFromStore.output()).contains("served model name must be 1 to 256");
        assertThat(home.resolve("store")).doesNotExist();
    }

    @Test
    void metricsShowTheLoadFromTheStoreAgainstTheModelsWeightBytes() throws Exception {
        Path model = tinyModel();
        long weightBytes;
        try (var files = Files.list(model)) {
            weightBytes = files.filter(f -> f.toString().endsWith(".safetensors")).mapToLong(f -> f.toFile().length()).sum();
        }
        Map<String, String> home = Map.of("WEIGHTSTORE_HOME", tmp.resolve("home").toString());
        CliProcess importing = CliProcess.start(tmp.resolve("import.log"), home, "model", "import", "--source", model.toString(),
                "--checkpoint-id", "tiny", "--model-id", "test/tiny");
        assertThat(importing.await()).as(importing.output()).isZero();
        Path serverTmp = Files.createDirectories(tmp.resolve("server-tmp"));
        CliProcess serve = CliProcess.start(tmp.resolve("serve.log"), Map.of("WEIGHTSTORE_HOME", tmp.resolve("home").toString(),
                "JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + serverTmp), "serve", "--model", "weightstore://tiny", "--port", "0");
        try {
            String base = awaitServing(serve);
            Scrape metrics = Scrape.parse(get(HttpClient.newHttpClient(), base + "/metrics", null).body());
            assertThat(metrics.value("weightstore_serve_model_weight_bytes")).isEqualTo(weightBytes);
            // The embedded store's pool is on this host: the weights are mapped in place, uncounted; the headers are read.
            assertThat(metrics.value("weightstore_client_read_bytes_total")).isPositive().isLessThan(weightBytes);
            assertThat(metrics.value("weightstore_serve_model_load_seconds")).isPositive();
            try (var kept = Files.list(serverTmp)) {
                assertThat(kept.map(p -> p.getFileName().toString())).anyMatch(name -> name.startsWith("weightstore-kv-"));
            }
        } finally {
            serve.stop();
        }
        // Stopped by a signal with its model loaded, the server still leaves no key-value cache directory behind.
        try (var left = Files.list(serverTmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith("weightstore-kv-"));
        }
    }

    private static String awaitServing(CliProcess serve) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher serving = SERVING.matcher(serve.output());
            if (serving.find()) {
                return serving.group(1);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("serve did not report serving in 60 s:\n" + serve.output());
    }

    private static HttpResponse<String> get(HttpClient http, String url, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}

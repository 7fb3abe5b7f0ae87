package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.WeightstoreHome;
import io.weightstore.weights.loader.LoadOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OpenAI-compatible endpoint over real HTTP, serving a model loaded from the store. */
class OpenAiServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = "once upon a time";

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();
    private JlamaModels.Loaded loaded;
    private OpenAiServer server;
    private String expected;

    @BeforeEach
    void serve() throws IOException {
        System.setProperty(WeightstoreHome.PROPERTY, tmp.resolve("home").toString());
        Path dir = tmp.resolve("model");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 5), dir, b -> {});
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home/store"), 256L << 20, ClientOptions.defaults())) {
            new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("tiny.v1"), "org/tiny", "main", dir, 1, false, 2),
                    Progress.NONE);
        }
        try (JlamaModels.Loaded reference = JlamaModels.load(dir.toString(), LoadOptions.defaults())) {
            expected = Completion.generate(reference.model(), PromptContext.of(PROMPT), 12, 0f, t -> {}).text();
        }
        loaded = JlamaModels.load("weightstore://tiny.v1", LoadOptions.defaults());
        server = OpenAiServer.start(loaded.model(), OpenAiServer.servedName("weightstore://tiny.v1"), "127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        server.close();
        loaded.close();
        System.clearProperty(WeightstoreHome.PROPERTY);
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void completionOverHttpHasTheSameTextAsGenerate() throws Exception {
        HttpResponse<String> response = post("/v1/completions",
                "{\"model\":\"tiny.v1\",\"prompt\":\"" + PROMPT + "\",\"max_tokens\":12,\"temperature\":0}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("object").asText()).isEqualTo("text_completion");
        assertThat(body.get("choices").get(0).get("text").asText()).isEqualTo(expected);
        assertThat(body.get("usage").get("completion_tokens").asInt()).isPositive();
    }

    @Test
    void modelsListsTheServedName() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/v1/models")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(JSON.readTree(response.body()).get("data").get(0).get("id").asText()).isEqualTo("tiny.v1");
        assertThat(OpenAiServer.servedName("weightstore://org/with spaces")).isEqualTo("org-with-spaces");
    }

    @Test
    void streamingAnswersWithServerSentEventsEndingInDone() throws Exception {
        HttpResponse<String> response = post("/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":8,\"stream\":true}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("text/event-stream");
        List<JsonNode> chunks = new ArrayList<>();
        for (String line : response.body().split("\n")) {
            if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                chunks.add(JSON.readTree(line.substring(6)));
            }
        }
        assertThat(response.body().strip()).endsWith("data: [DONE]");
        assertThat(chunks).isNotEmpty().allSatisfy(c -> assertThat(c.get("object").asText()).isEqualTo("chat.completion.chunk"));
        assertThat(chunks.getLast().get("choices").get(0).get("finish_reason").asText()).isNotEmpty();
    }

    @Test
    void badRequestsGetClearJsonErrors() throws Exception {
        record Case(String path, String body, int status, String message) {}
        for (Case c : List.of(
                new Case("/v1/completions", "not json", 400, "not valid JSON"),
                new Case("/v1/completions", "{}", 400, "'prompt' is required"),
                new Case("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":0}", 400, "'max_tokens' must be in 1..4096"),
                new Case("/v1/completions", "{\"prompt\":\"x\",\"model\":\"other\"}", 404, "not served here"),
                new Case("/v1/chat/completions", "{\"messages\":[]}", 400, "non-empty array"),
                new Case("/v1/chat/completions", "{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", 400, "role"),
                new Case("/v2/nothing", "{}", 404, "no endpoint /v2/nothing"))) {
            HttpResponse<String> response = post(c.path(), c.body());
            assertThat(response.statusCode()).as(c.toString()).isEqualTo(c.status());
            assertThat(JSON.readTree(response.body()).get("error").get("message").asText()).as(c.toString()).contains(c.message());
        }
        HttpResponse<String> wrongMethod = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/v1/completions")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
    }
}

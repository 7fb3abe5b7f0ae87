package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.jlama.Completion;
import io.weightstore.store.CapturedErr;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What running {@code serve} takes: health, readiness, keys, metrics, queueing and clients that leave. */
class ServeOperationsTest {
    private static final String KEY = "sk-test-0123456789";

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final LoadedTinyModel TINY = new LoadedTinyModel(() -> tmp.resolve("model"));


    private static ServeConfig config(int maxConcurrent, int maxQueue, Optional<ApiKey> key) {
        return new ServeConfig("127.0.0.1", 0, maxConcurrent, maxQueue, key);
    }

    private static String completion(String prompt, int maxTokens) {
        return "{\"prompt\":\"" + prompt + "\",\"max_tokens\":" + maxTokens + ",\"temperature\":0}";
    }

    @Test
    void healthAnswersAtOnceAndReadyOnceTheModelIsServed() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(config(1, 1, Optional.empty()))) {
            Http http = new Http(server.port());
            assertThat(http.get("/health").status()).isEqualTo(200);
            Http.Reply notReady = http.get("/ready");
            assertThat(notReady.status()).isEqualTo(503);
            assertThat(notReady.json().get("status").asText()).isEqualTo("loading");
            Http.Reply loading = http.get("/v1/models");
            assertThat(loading.status()).isEqualTo(503);
            assertThat(loading.error().get("message").asText()).contains("still loading");
            server.serve(TINY.served());
            Http.Reply ready = http.get("/ready");
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.json().get("model").asText()).isEqualTo(TinyModel.NAME);
            assertThat(http.get("/v1/models").status()).isEqualTo(200);
        }
    }

    @Test
    void withAKeyEveryApiRequestNeedsItButHealthReadinessAndMetricsDoNot() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config(1, 1, Optional.of(ApiKey.of(KEY))));
                var captured = new CapturedErr(log)) {
            Http anonymous = new Http(server.port());
            for (String path : List.of("/v1/models", "/v1/models/tiny", "//v1/models", "/nothing")) {
                Http.Reply refused = anonymous.get(path);
                assertThat(refused.status()).as(path).isEqualTo(401);
                assertThat(refused.error().get("code").asText()).isEqualTo("invalid_api_key");
                assertThat(refused.error().get("type").asText()).isEqualTo("invalid_request_error");
                assertThat(refused.raw().headers().firstValue("WWW-Authenticate")).contains("Bearer");
            }
            assertThat(anonymous.post("/v1/completions", completion("hi", 2)).status()).isEqualTo(401);
            assertThat(anonymous.withKey(KEY + "x").get("/v1/models").status()).isEqualTo(401);
            assertThat(anonymous.withKey(KEY.substring(1)).get("/v1/models").status()).isEqualTo(401);
            assertThat(anonymous.withKey(KEY).get("/v1/models").status()).isEqualTo(200);
            assertThat(anonymous.withKey(KEY).post("/v1/completions", completion("hi", 2)).status()).isEqualTo(200);
            for (String open : List.of("/health", "/ready", "/metrics")) {
                assertThat(anonymous.get(open).status()).as(open).isEqualTo(200);
            }
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines).contains("GET /v1/models 401").contains("GET /v1/models 200").doesNotContain(KEY);
        assertThat(ApiKey.of(KEY).toString()).doesNotContain(KEY);
    }

    @Test
    void withoutAKeyOnLoopbackOnlyRequestsForLoopbackNamesAreAnswered() throws Exception {
        try (OpenAiServer server = TINY.serve(config(1, 1, Optional.empty()))) {
            String port = ":" + server.port();
            assertThat(status(server, "GET /v1/models", "Host: localhost" + port)).isEqualTo(200);
            assertThat(status(server, "GET /v1/models", "Host: 127.0.0.1" + port)).isEqualTo(200);
            assertThat(status(server, "GET /v1/models", "Host: [::1]" + port)).isEqualTo(200);
            assertThat(status(server, "GET /v1/models", "Host: localhost" + port, "Origin: http://localhost:3000")).isEqualTo(200);
            assertThat(status(server, "GET /v1/models", "Host: rebound.example" + port)).as("a name rebound to 127.0.0.1").isEqualTo(403);
            assertThat(status(server, "GET /metrics", "Host: rebound.example" + port)).isEqualTo(403);
            assertThat(status(server, "GET /v1/models", "Host: 127.0.0.1" + port, "Origin: https://page.example"))
                    .as("a cross-site request from a page").isEqualTo(403);
        }
    }

    /** The status of a bodiless request with exactly these headers, as a browser would send them. */
    private static int status(OpenAiServer server, String requestLine, String... headers) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            String request = requestLine + " HTTP/1.1\r\n" + String.join("\r\n", headers) + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            String statusLine = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }

    @Test
    void metricsCountRequestsTokensAndSpeed() throws Exception {
        try (OpenAiServer server = TINY.serve(config(1, 1, Optional.empty()))) {
            Http http = new Http(server.port());
            http.post("/v1/completions", completion("hello", 5));
            http.post("/v1/completions", completion("hello", 5));
            http.post("/v1/completions", "{}");
            Http.Reply metrics = http.get("/metrics");
            assertThat(metrics.raw().headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            assertThat(metrics.body())
                    .contains("weightstore_serve_requests_total{route=\"/v1/completions\",status=\"200\"} 2.0")
                    .contains("weightstore_serve_requests_total{route=\"/v1/completions\",status=\"400\"} 1.0")
                    .contains("weightstore_serve_generated_tokens_total 10.0")
                    .contains("weightstore_serve_queue_depth 0.0")
                    .contains("weightstore_serve_generations_running 0.0")
                    .contains("weightstore_serve_request_duration_seconds_bucket{route=\"/v1/completions\",le=\"+Inf\"} 3");
            assertThat(gauge(metrics.body(), "weightstore_serve_tokens_per_second")).isPositive();
        }
    }

    @Test
    void requestsBeyondTheQueueGetA429AndTheQueuedOnesAreServed() throws Exception {
        try (OpenAiServer server = TINY.serve(config(1, 2, Optional.empty()))) {
            Http http = new Http(server.port());
            List<CompletableFuture<Http.Reply>> admitted = new ArrayList<>();
            // While the test holds the model's turns, the first request holds the only slot and cannot finish.
            TINY.served().turns().lock();
            try {
                for (String name : List.of("first", "second", "third")) {
                    admitted.add(CompletableFuture.supplyAsync(() -> call(() -> http.post("/v1/completions", completion(name, 3)))));
                    int waiting = admitted.size() - 1;
                    Eventually.holds(() -> server.queue().running() == 1 && server.queue().waiting() == waiting);
                }
                Http.Reply refused = http.post("/v1/completions", completion("fourth", 3));
                assertThat(refused.status()).isEqualTo(429);
                assertThat(refused.error().get("code").asText()).isEqualTo("rate_limit_exceeded");
                assertThat(refused.error().get("message").asText()).contains("--max-queue");
                assertThat(refused.raw().headers().firstValue("Retry-After")).contains("1");
                assertThat(http.get("/metrics").body()).contains("weightstore_serve_queue_depth 2.0");
            } finally {
                TINY.served().turns().unlock();
            }
            for (CompletableFuture<Http.Reply> reply : admitted) {
                assertThat(reply.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void concurrentGenerationsTakeTurnsOnTheModelAndGiveWhatEachGivesAlone() throws Exception {
        List<String> prompts = List.of("one two", "three four five", "six");
        List<String> alone = prompts.stream()
                .map(p -> Completion.generate(TINY.served().model(), PromptContext.of(p), 40, 0f, t -> {}).text()).toList();
        try (OpenAiServer server = TINY.serve(config(3, 0, Optional.empty()))) {
            Http http = new Http(server.port());
            List<CompletableFuture<Http.Reply>> replies = new ArrayList<>();
            TINY.served().turns().lock();
            try {
                for (String prompt : prompts) {
                    replies.add(CompletableFuture.supplyAsync(() -> call(() -> http.post("/v1/completions", completion(prompt, 40)))));
                }
                Eventually.holds(() -> server.queue().running() == 3);
            } finally {
                TINY.served().turns().unlock();
            }
            for (int i = 0; i < prompts.size(); i++) {
                assertThat(replies.get(i).get(30, TimeUnit.SECONDS).json().at("/choices/0/text").asText()).isEqualTo(alone.get(i));
            }
        }
    }

    @Test
    void aBodyCutShortOfItsLengthIsAClientThatLeftNotAServerFailure() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config(1, 1, Optional.empty()));
                var captured = new CapturedErr(log)) {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000\r\n\r\n{\"prompt\":").getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
                socket.shutdownOutput();
                socket.getInputStream().readAllBytes();
            }
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("POST /v1/completions"));
            Http http = new Http(server.port());
            assertThat(http.post("/v1/completions", completion("after", 2)).status()).isEqualTo(200);
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines).contains("POST /v1/completions 400").contains("(client went away)").doesNotContain("its generation stopped");
        assertThat(lines).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("ERROR");
    }

    @Test
    void aClientThatLeavesMidStreamStopsItsGenerationQuietly() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config(1, 1, Optional.empty()));
                var captured = new CapturedErr(log)) {
            Http http = new Http(server.port());
            String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"tell me everything\"}],\"stream\":true,\"temperature\":0}";
            // The first event, the assistant's role, comes before any pass through the model; held turns keep it at that.
            TINY.served().turns().lock();
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                OutputStream out = socket.getOutputStream();
                out.write(Http.rawPost("/v1/chat/completions", body));
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.startsWith("data: ")) {
                    // status line, headers, chunk size
                }
                assertThat(line).contains("\"role\":\"assistant\"");
                // Reset rather than close politely: the server's next write fails at once.
                socket.setSoLinger(true, 0);
            } finally {
                TINY.served().turns().unlock();
            }
            Eventually.holds(() -> server.queue().running() == 0);
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("client went away"));
            assertThat(http.get("/metrics").body()).contains("weightstore_serve_generations_cancelled_total 1.0")
                    .contains("weightstore_serve_generated_tokens_total 0.0");
            assertThat(http.get("/health").status()).isEqualTo(200);
            Http.Reply next = http.post("/v1/completions", completion("after", 4));
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.json().at("/usage/completion_tokens").asInt()).isEqualTo(4);
            // The access log line comes once the answer is out.
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("POST /v1/completions 200"));
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines).contains("POST /v1/chat/completions 200").contains("(client went away; its generation stopped)")
                .contains("POST /v1/completions 200");
        assertThat(lines.lines().filter(l -> l.contains("client went away"))).hasSize(1);
        assertThat(lines).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("WARN").doesNotContain("ERROR");
    }

    private static double gauge(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(metrics);
        assertThat(m.find()).as(name + " in " + metrics).isTrue();
        return Double.parseDouble(m.group(1));
    }


    private interface Call<T> {
        T run() throws Exception;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

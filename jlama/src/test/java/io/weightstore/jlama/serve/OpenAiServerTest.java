package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.jlama.Completion;
import io.weightstore.jlama.ContextWindow;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The OpenAI-compatible API over real HTTP: what it answers, and what it refuses and how. */
class OpenAiServerTest {
    private static final String PROMPT = "once upon a time";
    private static final String CHAT = "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],\"temperature\":0";

    @TempDir
    static Path tmp;

    @RegisterExtension
    static final LoadedTinyModel TINY = new LoadedTinyModel(() -> tmp.resolve("model"));

    private static OpenAiServer server;
    private static Http http;

    @BeforeAll
    static void serve() throws Exception {
        server = TINY.serve(new ServeConfig("127.0.0.1", 0, 1, 4, Optional.empty()));
        http = new Http(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String greedy(String prompt, int maxTokens) {
        return Completion.generate(TINY.served().model(), PromptContext.of(prompt), maxTokens, 0f, t -> {}).text();
    }

    @Test
    void completionHasTheTextOfGenerateAndCountsTokensExactly() throws Exception {
        Http.Reply reply = http.post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":\"" + PROMPT + "\",\"max_tokens\":12,\"temperature\":0}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode body = reply.json();
        assertThat(body.get("object").asText()).isEqualTo("text_completion");
        assertThat(body.get("id").asText()).startsWith("cmpl-");
        assertThat(body.at("/choices/0/text").asText()).isEqualTo(greedy(PROMPT, 12));
        assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(12);
        assertThat(body.at("/usage/prompt_tokens").asInt()).isEqualTo(TINY.served().encode(PromptContext.of(PROMPT)).length);
        assertThat(body.at("/usage/total_tokens").asInt()).isEqualTo(body.at("/usage/prompt_tokens").asInt() + 12);
    }

    @Test
    void modelsAreListedAndRetrievedByIdAndAnUnknownIdIsA404InOpenAiForm() throws Exception {
        assertThat(http.get("/v1/models").json().at("/data/0/id").asText()).isEqualTo("tiny");
        JsonNode one = http.get("/v1/models/tiny").json();
        assertThat(one.get("id").asText()).isEqualTo("tiny");
        assertThat(one.get("object").asText()).isEqualTo("model");
        Http.Reply unknown = http.get("/v1/models/other");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error().get("code").isTextual()).isTrue();
        assertThat(unknown.error().get("code").asText()).isEqualTo("model_not_found");
        assertThat(unknown.error().get("message").asText()).contains("'other'");
        assertThat(ServedModel.nameFor("weightstore://org/with spaces")).isEqualTo("org-with-spaces");
    }

    @Test
    void streamedChatStartsWithTheAssistantRoleAndAddsUpToTheWholeAnswer() throws Exception {
        String whole = http.post("/v1/chat/completions", CHAT + ",\"max_tokens\":10}").json().at("/choices/0/message/content").asText();
        Http.Reply reply = http.post("/v1/chat/completions", CHAT + ",\"max_tokens\":10,\"stream\":true}");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.raw().headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        assertThat(reply.body().strip()).endsWith("data: [DONE]");
        List<JsonNode> chunks = reply.events();
        assertThat(chunks).allSatisfy(c -> assertThat(c.get("object").asText()).isEqualTo("chat.completion.chunk"));
        assertThat(chunks.getFirst().at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        assertThat(chunks.stream().skip(1)).allSatisfy(c -> assertThat(c.at("/choices/0/delta/role").isMissingNode()).isTrue());
        assertThat(chunks.getLast().at("/choices/0/finish_reason").asText()).isEqualTo("length");
        assertThat(chunks.getLast().has("usage")).isFalse();
        StringBuilder streamed = new StringBuilder();
        chunks.forEach(c -> streamed.append(c.at("/choices/0/delta/content").asText("")));
        assertThat(streamed.toString()).isEqualTo(whole);
    }

    @Test
    void includeUsageEndsTheStreamWithAUsageChunkWithoutChoices() throws Exception {
        Http.Reply reply = http.post("/v1/completions", "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":5,\"temperature\":0,"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
        List<JsonNode> chunks = reply.events();
        JsonNode last = chunks.getLast();
        assertThat(last.get("choices")).isEmpty();
        assertThat(last.at("/usage/completion_tokens").asInt()).isEqualTo(5);
        assertThat(chunks.subList(0, chunks.size() - 1)).allSatisfy(c -> assertThat(c.get("usage").isNull()).isTrue());
        StringBuilder streamed = new StringBuilder();
        chunks.forEach(c -> streamed.append(c.at("/choices/0/text").asText("")));
        assertThat(streamed.toString()).isEqualTo(greedy(PROMPT, 5));
    }

    @Test
    void stopCutsTheTextBeforeTheStopSequenceWhetherStreamedOrNot() throws Exception {
        String full = greedy(PROMPT, 24);
        String stop = full.substring(8, 10);
        String expected = full.substring(0, full.indexOf(stop));
        for (String stopJson : List.of(Http.JSON.writeValueAsString(stop), Http.JSON.writeValueAsString(List.of("\u0000never", stop)))) {
            String request = "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":24,\"temperature\":0,\"stop\":" + stopJson;
            JsonNode whole = http.post("/v1/completions", request + "}").json();
            assertThat(whole.at("/choices/0/text").asText()).as(stopJson).isEqualTo(expected);
            assertThat(whole.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
            List<JsonNode> chunks = http.post("/v1/completions", request + ",\"stream\":true}").events();
            StringBuilder streamed = new StringBuilder();
            chunks.forEach(c -> streamed.append(c.at("/choices/0/text").asText("")));
            assertThat(streamed.toString()).isEqualTo(expected);
            assertThat(chunks.getLast().at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        }
    }

    @Test
    void nGivesThatManyChoicesEachWithItsOwnSeed() throws Exception {
        String request = "{\"prompt\":\"" + PROMPT + "\",\"max_tokens\":8,\"temperature\":1,\"n\":2,\"seed\":";
        JsonNode two = http.post("/v1/completions", request + "41}").json();
        assertThat(two.get("choices")).hasSize(2);
        assertThat(two.at("/choices/1/index").asInt()).isEqualTo(1);
        String first = two.at("/choices/0/text").asText();
        String second = two.at("/choices/1/text").asText();
        assertThat(first).isNotEqualTo(second);
        // Choice i is seeded with seed + i: the second choice is what seed 42 gives as the first.
        assertThat(http.post("/v1/completions", request + "42}").json().at("/choices/0/text").asText()).isEqualTo(second);
        assertThat(http.post("/v1/completions", request + "41}").json().at("/choices/0/text").asText()).isEqualTo(first);
        assertThat(two.at("/usage/completion_tokens").asInt()).isEqualTo(16);

        List<JsonNode> chunks = http.post("/v1/chat/completions", CHAT + ",\"max_tokens\":4,\"n\":2,\"stream\":true}").events();
        for (int index = 0; index < 2; index++) {
            int i = index;
            List<JsonNode> ofChoice = chunks.stream().filter(c -> c.at("/choices/0/index").asInt() == i).toList();
            assertThat(ofChoice.getFirst().at("/choices/0/delta/role").asText()).isEqualTo("assistant");
            assertThat(ofChoice.getLast().at("/choices/0/finish_reason").asText()).isEqualTo("length");
        }
    }

    @Test
    void maxCompletionTokensBoundsAChatAnswer() throws Exception {
        JsonNode body = http.post("/v1/chat/completions", CHAT + ",\"max_completion_tokens\":3}").json();
        assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(3);
        assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        Http.Reply both = http.post("/v1/chat/completions", CHAT + ",\"max_completion_tokens\":3,\"max_tokens\":4}");
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.error().get("param").asText()).isEqualTo("max_tokens");
    }

    @Test
    void contentAsAnArrayOfTextPartsIsTheSameAsTheJoinedString() throws Exception {
        String parts = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"},{\"type\":\"text\","
                + "\"text\":\"there\"}]}],\"temperature\":0,\"max_tokens\":6}";
        String joined = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\\nthere\"}],\"temperature\":0,\"max_tokens\":6}";
        Http.Reply fromParts = http.post("/v1/chat/completions", parts);
        assertThat(fromParts.status()).as(fromParts.body()).isEqualTo(200);
        assertThat(fromParts.json().at("/choices/0/message/content").asText())
                .isEqualTo(http.post("/v1/chat/completions", joined).json().at("/choices/0/message/content").asText());
        Http.Reply image = http.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                + "\"text\":\"hi\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://x/y.png\"}}]}]}");
        assertThat(image.status()).isEqualTo(400);
        assertThat(image.error().get("param").asText()).isEqualTo("messages[0].content[1]");
        assertThat(image.error().get("message").asText()).contains("image_url");
    }

    @Test
    void unsupportedParametersAreRefusedByNameAndNeutralValuesAccepted() throws Exception {
        record Case(String endpoint, String field, String value) {}
        for (Case c : List.of(
                new Case("/v1/chat/completions", "logprobs", "true"),
                new Case("/v1/chat/completions", "top_logprobs", "2"),
                new Case("/v1/chat/completions", "response_format", "{\"type\":\"json_object\"}"),
                new Case("/v1/chat/completions", "tools", "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]"),
                new Case("/v1/chat/completions", "tool_choice", "\"auto\""),
                new Case("/v1/chat/completions", "top_p", "0.5"),
                new Case("/v1/chat/completions", "frobnicate", "1"),
                new Case("/v1/completions", "echo", "true"),
                new Case("/v1/completions", "logprobs", "2"),
                new Case("/v1/completions", "suffix", "\"x\""),
                new Case("/v1/completions", "max_completion_tokens", "3"))) {
            String start = c.endpoint().equals("/v1/completions") ? "{\"prompt\":\"x\"" : "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";
            Http.Reply reply = http.post(c.endpoint(), start + ",\"max_tokens\":1,\"" + c.field() + "\":" + c.value() + "}");
            assertThat(reply.status()).as(c.toString()).isEqualTo(400);
            assertThat(reply.error().get("type").asText()).isEqualTo("invalid_request_error");
            assertThat(reply.error().get("param").asText()).as(c.toString()).isEqualTo(c.field());
            assertThat(reply.error().get("code").isTextual()).isTrue();
            assertThat(reply.error().get("message").asText()).contains("'" + c.field() + "'");
        }
        Http.Reply neutral = http.post("/v1/chat/completions", CHAT + ",\"max_tokens\":1,\"logprobs\":false,\"top_p\":1,"
                + "\"frequency_penalty\":0,\"response_format\":{\"type\":\"text\"},\"tools\":null,\"user\":\"u1\"}");
        assertThat(neutral.status()).as(neutral.body()).isEqualTo(200);
    }

    @Test
    void numbersAreCheckedStrictlyAndNamedWithTheirLimits() throws Exception {
        record Case(String field, String value, String message) {}
        for (Case c : List.of(
                new Case("max_tokens", "\"5\"", "must be an integer, found a string \"5\""),
                new Case("max_tokens", "1e12",
                        "must be at most " + TINY.served().contextLength() + " (the model's context length), found 1000000000000"),
                new Case("max_tokens", "99999999999999999999999", "found 99999999999999999999999"),
                // Said in scientific notation: written out in full, it would be a gigabyte of digits.
                new Case("max_tokens", "1e999999999", "found 1E+999999999"),
                new Case("temperature", "-1e2147483647", "found -1E+2147483647"),
                new Case("seed", "1e-999999999", "must be an integer, found 1E-999999999"),
                new Case("max_tokens", "2.5", "must be an integer, found 2.5"),
                new Case("max_tokens", "0", "must be at least 1, found 0"),
                new Case("temperature", "\"0\"", "must be a number"),
                new Case("temperature", "2.5", "must be in 0.0..2.0, found 2.5"),
                new Case("n", "0", "must be at least 1"),
                new Case("n", "9", "must be at most 8"),
                new Case("seed", "1.5", "must be an integer"),
                new Case("stream", "\"true\"", "must be true or false"),
                new Case("stop", "[\"a\",\"b\",\"c\",\"d\",\"e\"]", "1 to 4 strings"),
                new Case("stop", "[\"\"]", "non-empty string"),
                new Case("stream_options", "{\"include_usage\":true}", "only allowed with \"stream\": true"),
                new Case("model", "\"other\"", "'other' is not served here"))) {
            Http.Reply reply = http.post("/v1/completions", "{\"prompt\":\"x\",\"" + c.field() + "\":" + c.value() + "}");
            assertThat(reply.status()).as(c.toString()).isIn(400, 404);
            assertThat(reply.error().get("param").asText()).as(c.toString()).isEqualTo(c.field());
            assertThat(reply.error().get("message").asText()).as(c.toString()).contains(c.message());
        }
        Http.Reply wholeFloat = http.post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2.0,\"temperature\":0}");
        assertThat(wholeFloat.json().at("/usage/completion_tokens").asInt()).isEqualTo(2);
    }

    @Test
    void aPromptThatOverflowsTheContextIsRefusedBeforeAnyCompute() throws Exception {
        int context = TINY.served().contextLength();
        // Two positions short of the config's: see ContextWindow.
        assertThat(context).isEqualTo(ContextWindow.tokens(TINY.served().model())).isEqualTo(TinyModel.CONFIG_CONTEXT - 2);
        String longPrompt = "a b ".repeat(100);
        int promptTokens = TINY.served().encode(PromptContext.of(longPrompt)).length;
        assertThat(promptTokens).isBetween(150, context - 20);
        String tooLong = "x y ".repeat(130);
        String beyondAnyTokenization = "z".repeat(Math.toIntExact(TINY.served().longestPrompt() + 1));
        // Holding the model's turns would stall any generation: the refusals must come without one.
        TINY.served().turns().lock();
        try {
            Http.Reply reply = CompletableFuture.supplyAsync(() -> call(() -> http.post("/v1/completions",
                    "{\"prompt\":\"" + longPrompt + "\",\"max_tokens\":" + (context + 1 - promptTokens) + "}"))).get(30, TimeUnit.SECONDS);
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.error().get("code").asText()).isEqualTo("context_length_exceeded");
            assertThat(reply.error().get("param").asText()).isEqualTo("max_tokens");
            assertThat(reply.error().get("message").asText()).contains("ask for at most " + (context - promptTokens));
            Http.Reply alone = CompletableFuture.supplyAsync(() -> call(() -> http.post("/v1/chat/completions",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"" + tooLong + "\"}]}"))).get(30, TimeUnit.SECONDS);
            assertThat(alone.status()).isEqualTo(400);
            assertThat(alone.error().get("code").asText()).isEqualTo("context_length_exceeded");
            assertThat(alone.error().get("param").asText()).isEqualTo("messages");
            Http.Reply untokenized = CompletableFuture.supplyAsync(() -> call(() -> http.post("/v1/completions",
                    "{\"prompt\":\"" + beyondAnyTokenization + "\"}"))).get(30, TimeUnit.SECONDS);
            assertThat(untokenized.status()).isEqualTo(400);
            assertThat(untokenized.error().get("code").asText()).isEqualTo("context_length_exceeded");
            assertThat(untokenized.error().get("message").asText()).contains(beyondAnyTokenization.length() + " characters");
        } finally {
            TINY.served().turns().unlock();
        }
        // What fits is generated to the last position, with greedy sampling and no end-of-sequence token in the way.
        Http.Reply fits = http.post("/v1/completions", "{\"prompt\":\"" + longPrompt + "\",\"max_tokens\":" + (context - promptTokens)
                + ",\"temperature\":0}");
        assertThat(fits.status()).as(fits.body()).isEqualTo(200);
        assertThat(fits.json().at("/usage/total_tokens").asInt()).isEqualTo(context);
    }

    @Test
    void badRequestsGetOpenAiStyleErrorsWithStringCodes() throws Exception {
        record Case(String path, String body, int status, String message) {}
        for (Case c : List.of(
                new Case("/v1/completions", "not json", 400, "not valid JSON"),
                new Case("/v1/completions", "\u0000\u0000\u0000 \u0000", 400, "not valid JSON"),
                new Case("/v1/chat/completions", "{\"messages\":[" + "{},".repeat(60_000) + "{}]}", 400, "too much JSON"),
                new Case("/v1/completions", "[1]", 400, "must be a JSON object"),
                new Case("/v1/completions", "", 400, "the request body is empty"),
                new Case("/v1/completions", "{\"prompt\":\"a\",\"prompt\":\"b\"}", 400, "Duplicate field 'prompt'"),
                new Case("/v1/completions", "{\"prompt\":\"a\"} {}", 400, "not valid JSON"),
                new Case("/v1/completions", "{}", 400, "'prompt' is required"),
                new Case("/v1/completions", "{\"prompt\":[\"a\",\"b\"]}", 400, "one prompt per request"),
                new Case("/v1/chat/completions", "{\"messages\":[]}", 400, "non-empty array"),
                new Case("/v1/chat/completions", "{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", 400, "messages[0].role"),
                new Case("/v1/chat/completions", "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}", 400, "no tools"),
                new Case("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"name\":\"n\"}]}", 400,
                        "messages[0].name"),
                new Case("/v2/nothing", "{}", 404, "no endpoint /v2/nothing"))) {
            Http.Reply reply = http.post(c.path(), c.body());
            assertThat(reply.status()).as(c.toString()).isEqualTo(c.status());
            JsonNode error = reply.error();
            assertThat(error.get("message").asText()).as(c.toString()).contains(c.message());
            assertThat(error.get("code").isTextual() || error.get("code").isNull()).as(c.toString()).isTrue();
            assertThat(error.has("param") && error.has("type")).isTrue();
        }
        Http.Reply wrongMethod = http.get("/v1/completions");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.raw().headers().firstValue("Allow")).contains("POST");
        assertThat(wrongMethod.error().get("code").asText()).isEqualTo("method_not_allowed");
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

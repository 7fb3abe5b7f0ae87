package io.weightstore.jlama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import com.github.tjake.jlama.safetensors.prompt.PromptSupport;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible HTTP endpoint for one Jlama model: {@code GET /v1/models},
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}, with {@code "stream": true}
 * answered as server-sent events. Requests are served one at a time: a Jlama model runs one
 * generation at once. Bad requests get a 4xx with an OpenAI-style JSON error.
 */
public final class OpenAiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OpenAiServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");
    private static final int MAX_BODY = 1 << 20;
    private static final int MAX_TOKENS_LIMIT = 4096;

    /** A request that cannot be served, answered with {@code status} and an OpenAI-style error body. */
    private static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final String type;

        BadRequest(int status, String type, String message) {
            super(message, null, false, false);
            this.status = status;
            this.type = type;
        }
    }

    private final AbstractModel model;
    private final String modelName;
    private final HttpServer server;
    private final ReentrantLock generating = new ReentrantLock();
    private final long created = Instant.now().getEpochSecond();

    private OpenAiServer(AbstractModel model, String modelName, HttpServer server) {
        this.model = model;
        this.modelName = modelName;
        this.server = server;
    }

    public static OpenAiServer start(AbstractModel model, String modelName, String host, int port) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 64);
        OpenAiServer server = new OpenAiServer(model, modelName, http);
        http.createContext("/", server::handle);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        return server;
    }

    /** A model name safe in URLs and JSON, from a checkpoint id or a directory name. */
    public static String servedName(String reference) {
        String base = reference.startsWith("weightstore://") ? reference.substring("weightstore://".length())
                : Path.of(reference).toAbsolutePath().normalize().getFileName().toString();
        String safe = UNSAFE.matcher(base).replaceAll("-");
        return safe.isEmpty() ? "model" : safe;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String modelName() {
        return modelName;
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            try {
                route(exchange);
            } catch (BadRequest e) {
                error(exchange, e.status, e.type, e.getMessage());
            } catch (RuntimeException e) {
                log.error("request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                error(exchange, 500, "server_error", String.valueOf(e.getMessage()));
            }
        } catch (IOException e) {
            log.debug("client went away: {}", e.getMessage());
        }
    }

    private void route(HttpExchange exchange) throws IOException, BadRequest {
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        switch (path) {
            case "/v1/models" -> {
                requireMethod(method, "GET");
                ObjectNode list = JSON.createObjectNode().put("object", "list");
                list.putArray("data").addObject().put("id", modelName).put("object", "model").put("created", created)
                        .put("owned_by", "weightstore");
                send(exchange, 200, list);
            }
            case "/v1/completions" -> {
                requireMethod(method, "POST");
                JsonNode body = body(exchange);
                String prompt = requiredText(body, "prompt");
                complete(exchange, body, PromptContext.of(prompt), false);
            }
            case "/v1/chat/completions" -> {
                requireMethod(method, "POST");
                JsonNode body = body(exchange);
                complete(exchange, body, chatPrompt(body), true);
            }
            default -> throw new BadRequest(404, "invalid_request_error", "no endpoint " + path
                    + "; try /v1/models, /v1/completions or /v1/chat/completions");
        }
    }

    private static void requireMethod(String method, String expected) throws BadRequest {
        if (!method.equals(expected)) {
            throw new BadRequest(405, "invalid_request_error", "method " + method + " not allowed here; use " + expected);
        }
    }

    private static JsonNode body(HttpExchange exchange) throws IOException, BadRequest {
        byte[] bytes = exchange.getRequestBody().readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
            throw new BadRequest(413, "invalid_request_error", "request body larger than " + MAX_BODY + " bytes");
        }
        try {
            JsonNode body = JSON.readTree(bytes);
            if (body == null || !body.isObject()) {
                throw new BadRequest(400, "invalid_request_error", "request body must be a JSON object");
            }
            return body;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadRequest(400, "invalid_request_error", "request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static String requiredText(JsonNode body, String field) throws BadRequest {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual()) {
            throw new BadRequest(400, "invalid_request_error", "'" + field + "' is required and must be a string");
        }
        return value.asText();
    }

    private PromptContext chatPrompt(JsonNode body) throws BadRequest {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw new BadRequest(400, "invalid_request_error", "'messages' is required and must be a non-empty array");
        }
        PromptSupport.Builder builder = model.promptSupport().map(PromptSupport::builder).orElse(null);
        StringBuilder plain = new StringBuilder();
        for (JsonNode message : messages) {
            String role = message.path("role").asText("");
            JsonNode content = message.get("content");
            if (content == null || !content.isTextual()) {
                throw new BadRequest(400, "invalid_request_error", "each message needs a string 'content'");
            }
            String text = content.asText();
            switch (role) {
                case "system" -> {
                    if (builder != null) {
                        builder.addSystemMessage(text);
                    }
                }
                case "user" -> {
                    if (builder != null) {
                        builder.addUserMessage(text);
                    }
                }
                case "assistant" -> {
                    if (builder != null) {
                        builder.addAssistantMessage(text);
                    }
                }
                default -> throw new BadRequest(400, "invalid_request_error", "message role must be system, user or assistant, found '"
                        + role + "'");
            }
            plain.append(role).append(": ").append(text).append('\n');
        }
        return builder != null ? builder.build() : PromptContext.of(plain.append("assistant: ").toString());
    }

    private void complete(HttpExchange exchange, JsonNode body, PromptContext prompt, boolean chat) throws IOException, BadRequest {
        if (body.has("model") && !modelName.equals(body.get("model").asText())) {
            throw new BadRequest(404, "model_not_found", "model '" + body.get("model").asText() + "' is not served here; this server"
                    + " serves '" + modelName + "'");
        }
        int maxTokens = body.path("max_tokens").asInt(16);
        float temperature = (float) body.path("temperature").asDouble(0.0);
        if (maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
            throw new BadRequest(400, "invalid_request_error", "'max_tokens' must be in 1.." + MAX_TOKENS_LIMIT + ", found " + maxTokens);
        }
        if (temperature < 0 || temperature > 2) {
            throw new BadRequest(400, "invalid_request_error", "'temperature' must be in 0..2, found " + temperature);
        }
        boolean stream = body.path("stream").asBoolean(false);
        long seed = body.hasNonNull("seed") ? body.get("seed").asLong() : ThreadLocalRandom.current().nextLong();
        String id = (chat ? "chatcmpl-" : "cmpl-") + UUID.randomUUID();
        generating.lock();
        try {
            if (stream) {
                exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                exchange.getResponseHeaders().set("Cache-Control", "no-cache");
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                Completion done = Completion.generate(model, prompt, maxTokens, temperature, seed,
                        token -> event(out, chunk(id, chat, token, null)));
                event(out, chunk(id, chat, "", done.finishReason()));
                out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
            } else {
                Completion done = Completion.generate(model, prompt, maxTokens, temperature, seed, token -> {});
                send(exchange, 200, response(id, chat, done));
            }
        } finally {
            generating.unlock();
        }
    }

    private ObjectNode response(String id, boolean chat, Completion done) {
        ObjectNode root = JSON.createObjectNode().put("id", id).put("object", chat ? "chat.completion" : "text_completion")
                .put("created", Instant.now().getEpochSecond()).put("model", modelName);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        if (chat) {
            choice.putObject("message").put("role", "assistant").put("content", done.text());
        } else {
            choice.put("text", done.text());
        }
        choice.put("finish_reason", done.finishReason());
        root.putObject("usage").put("prompt_tokens", done.promptTokens()).put("completion_tokens", done.generatedTokens())
                .put("total_tokens", done.promptTokens() + done.generatedTokens());
        return root;
    }

    private ObjectNode chunk(String id, boolean chat, String token, String finishReason) {
        ObjectNode root = JSON.createObjectNode().put("id", id).put("object", chat ? "chat.completion.chunk" : "text_completion")
                .put("created", Instant.now().getEpochSecond()).put("model", modelName);
        ArrayNode choices = root.putArray("choices");
        ObjectNode choice = choices.addObject().put("index", 0);
        if (chat) {
            choice.putObject("delta").put("content", token);
        } else {
            choice.put("text", token);
        }
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return root;
    }

    private static void event(OutputStream out, ObjectNode data) {
        try {
            out.write(("data: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("client went away during streaming", e);
        }
    }

    private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static void error(HttpExchange exchange, int status, String type, String message) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("error").put("message", message).put("type", type).putNull("param").put("code", status);
        send(exchange, status, body);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

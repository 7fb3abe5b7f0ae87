package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.weightstore.jlama.Completion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/chat/completions} and {@code POST /v1/completions}. A request takes its place in
 * the queue before its body is read, or is turned away with a 429 unread. What can be refused from
 * the request alone is refused before it waits: unknown fields, bad values, a prompt of more
 * characters than any tokenization of it could fit in the context. Then the request waits for a generation
 * slot; in it the prompt is tokenized (in time near linear in its length, but a request thread that
 * computes holds its carrier, so tokenizing is bounded like generating),
 * a prompt and completion that do not fit the context are refused, and the choices are generated
 * one after another, answered whole or streamed. The body and each part of the answer are bounded
 * by the {@link ClientDeadline}; a whole answer is sent after the slot is given back, so a client slow
 * to take it holds only its own connection.
 */
final class CompletionsHandler {
    private static final Logger log = LoggerFactory.getLogger(CompletionsHandler.class);

    private final Endpoint endpoint;
    private final Supplier<ServedModel> model;
    private final AdmissionQueue queue;
    private final ServeMetrics metrics;
    private final ClientDeadline deadline;

    CompletionsHandler(Endpoint endpoint, Supplier<ServedModel> model, AdmissionQueue queue, ServeMetrics metrics,
            ClientDeadline deadline) {
        this.endpoint = endpoint;
        this.model = model;
        this.queue = queue;
        this.metrics = metrics;
        this.deadline = deadline;
    }

    void handle(ServerRequest httpRequest, ServerResponse response) {
        ServedModel served = model.get();
        List<Completion> choices = new ArrayList<>();
        Responses shapes;
        // The place in the queue comes before the body: bodies held and parsed at once are bounded by the queue, not by
        // the connections, each of which may send 16 MiB.
        try (AdmissionQueue.Ticket ticket = queue.enter()) {
            CompletionRequest request = read(httpRequest, response, served);
            shapes = new Responses(endpoint, endpoint.idPrefix + UUID.randomUUID(), Instant.now().getEpochSecond(), served.name());
            long seed = request.seed().orElseGet(() -> ThreadLocalRandom.current().nextLong());
            // Before the turn, not during it: a request that held the model while it tokenized a long prompt would hold every
            // other request up with it.
            int[] prompt = served.encode(request.prompt());
            int maxTokens = request.maxTokensFor(prompt.length, served.contextLength());
            ticket.awaitTurn();
            if (request.stream()) {
                stream(served, prompt, request, maxTokens, seed, shapes, response);
                return;
            }
            for (int i = 0; i < request.n(); i++) {
                choices.add(generate(served, prompt, request, maxTokens, seed + i, text -> {}));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiError.unavailable("the server is shutting down");
        }
        Exchange.send(deadline, response, 200, shapes.completion(choices));
    }

    /** The request in the body, refused for what is wrong with it alone. */
    private CompletionRequest read(ServerRequest httpRequest, ServerResponse response, ServedModel served) {
        JsonNode body = deadline.within(() -> Exchange.body(httpRequest), ClientGone::sentTooSlowly);
        UnreadBodies.keepAlive(response);
        CompletionRequest request = CompletionRequest.parse(endpoint, body, served);
        int characters = request.prompt().getPrompt().length();
        if (characters > served.longestPrompt()) {
            throw ApiError.contextLengthExceeded(endpoint.promptParam, "the prompt has " + characters + " characters; the model's"
                    + " context of " + served.contextLength() + " tokens, none longer than " + served.longestToken()
                    + " characters, holds at most " + served.longestPrompt() + "; shorten it");
        }
        return request;
    }

    private void stream(ServedModel served, int[] prompt, CompletionRequest request, int maxTokens, long seed, Responses shapes,
            ServerResponse response) {
        boolean usage = request.includeUsage();
        List<Completion> choices = new ArrayList<>();
        try (EventStream events = new EventStream(response, deadline)) {
            try {
                for (int i = 0; i < request.n(); i++) {
                    int index = i;
                    if (endpoint == Endpoint.CHAT) {
                        events.send(shapes.textChunk(index, "", true, usage));
                    }
                    Completion done = generate(served, prompt, request, maxTokens, seed + i,
                            text -> events.send(shapes.textChunk(index, text, false, usage)));
                    events.send(shapes.finishChunk(index, done.finishReason(), usage));
                    choices.add(done);
                }
                if (usage) {
                    events.send(shapes.usageChunk(choices));
                }
            } catch (ClientGone e) {
                throw e;
            } catch (RuntimeException e) {
                // The status is out already: the error goes in the stream, as OpenAI sends one.
                log.error("{} failed while streaming", endpoint.path, e);
                events.send(ApiError.internal("the server failed: " + e).toJson());
            }
            events.done();
        }
    }

    private Completion generate(ServedModel served, int[] prompt, CompletionRequest request, int maxTokens, long seed,
            Consumer<String> onText) {
        Completion done;
        try {
            done = Completion.generate(served.model(), prompt,
                    new Completion.Sampling(maxTokens, request.temperature(), seed, request.stop()), served.turns(), onText);
        } catch (ClientGone e) {
            metrics.cancelled();
            throw e.stoppedGeneration();
        }
        metrics.generated(done);
        log.debug("{} choice: {} prompt tokens, {} generated at {} tokens/s ({})", endpoint.path, done.promptTokens(),
                done.generatedTokens(), done.tokensPerSecond(), done.finishReason());
        return done;
    }
}

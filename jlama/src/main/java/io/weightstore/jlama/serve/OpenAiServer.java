package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import io.weightstore.weights.loader.CheckpointSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible HTTP API for one Jlama model, on Helidon's web server (a virtual thread per
 * request). It listens as soon as it starts, so that {@code /health} answers while the model loads;
 * {@code /ready} and the API answer once {@link #serve} hands it the model.
 *
 * <ul>
 *   <li>{@code GET /v1/models}, {@code GET /v1/models/{id}}
 *   <li>{@code POST /v1/chat/completions}, {@code POST /v1/completions} (see {@link CompletionsHandler})
 *   <li>{@code GET /health} (200 while the process is up), {@code GET /ready} (200 once the model is
 *       loaded, 503 before), {@code GET /metrics} (Prometheus)
 * </ul>
 */
public final class OpenAiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OpenAiServer.class);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** The method each path takes, to tell a wrong method (405) from a wrong path (404). */
    private static final Map<String, String> METHODS = Map.of("/health", "GET", "/ready", "GET", "/metrics", "GET",
            "/v1/models", "GET", Endpoint.COMPLETIONS.path, "POST", Endpoint.CHAT.path, "POST");

    /**
     * Each connection's kernel send buffer, fixed rather than grown by the kernel to megabytes: answers
     * are small (a streamed token is an event of a few hundred bytes), so this bounds the kernel memory
     * of many connections, and a client that stops reading fills it, and meets the client deadline,
     * after a few hundred tokens rather than tens of thousands.
     */
    private static final int SEND_BUFFER_BYTES = 64 << 10;

    private final WebServer server;
    private final AtomicReference<ServedModel> model;
    private final AdmissionQueue queue;
    private final ServeMetrics metrics;
    private final ClientDeadline deadline;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OpenAiServer(WebServer server, AtomicReference<ServedModel> model, AdmissionQueue queue, ServeMetrics metrics,
            ClientDeadline deadline) {
        this.server = server;
        this.model = model;
        this.queue = queue;
        this.metrics = metrics;
        this.deadline = deadline;
    }

    /** Starts listening, not yet ready: every {@code /v1/} request gets a 503 until {@link #serve}. */
    public static OpenAiServer start(ServeConfig config) {
        AtomicReference<ServedModel> model = new AtomicReference<>();
        AdmissionQueue queue = new AdmissionQueue(config.maxConcurrent(), config.maxQueue());
        ServeMetrics metrics = new ServeMetrics(queue);
        ClientDeadline deadline = new ClientDeadline(config.clientTimeout());
        HttpRouting.Builder routing = HttpRouting.builder().addFilter(new AccessLog(metrics)).addFilter(new UnreadBodies());
        config.apiKey().ifPresentOrElse(key -> routing.addFilter(new BearerAuth(key, deadline)), () -> {
            if (config.listensOnLoopback()) {
                routing.addFilter(new LoopbackNames(deadline));
            }
        });
        Supplier<ServedModel> loaded = () -> {
            ServedModel served = model.get();
            if (served == null) {
                throw ApiError.unavailable("the model is still loading; GET /ready answers 200 once it is loaded");
            }
            return served;
        };
        CompletionsHandler chat = new CompletionsHandler(Endpoint.CHAT, loaded, queue, metrics, deadline);
        CompletionsHandler completions = new CompletionsHandler(Endpoint.COMPLETIONS, loaded, queue, metrics, deadline);
        routing.get("/health", guarded(deadline, (req, res) -> Exchange.send(deadline, res, 200, JSON.objectNode().put("status", "ok"))))
                .get("/ready", guarded(deadline, (req, res) -> {
                    ServedModel served = model.get();
                    Exchange.send(deadline, res, served == null ? 503 : 200, served == null ? JSON.objectNode().put("status", "loading")
                            : JSON.objectNode().put("status", "ready").put("model", served.name()));
                }))
                .get("/metrics", guarded(deadline, (req, res) -> {
                    res.header(HeaderNames.CONTENT_TYPE, metrics.contentType());
                    Exchange.send(deadline, res, metrics.scrape());
                }))
                .get("/v1/models", guarded(deadline, (req, res) -> Exchange.send(deadline, res, 200, Responses.modelList(loaded.get()))))
                .get("/v1/models/*", guarded(deadline, (req, res) -> retrieveModel(deadline, req, res, loaded.get())))
                .post(Endpoint.CHAT.path, guarded(deadline, chat::handle))
                .post(Endpoint.COMPLETIONS.path, guarded(deadline, completions::handle))
                .any(guarded(deadline, OpenAiServer::noRoute));
        try {
            requireFreePort(config);
            // Helidon closes a connection whose last request line (or whose opening) came longer ago than the idle
            // timeout, at once when it is waiting for a request line, else once its request is answered; the headers
            // after a request line have the header deadline.
            WebServer server = WebServer.builder().host(config.host()).port(config.port()).routing(routing)
                    .idleConnectionTimeout(config.clientTimeout()).idleConnectionPeriod(config.clientTimeout().dividedBy(2))
                    .maxTcpConnections(config.maxConnections())
                    .addProtocol(Http1Config.builder().addReceiveListener(new HeaderDeadline(deadline)).build())
                    .connectionOptions(socket -> socket.socketSendBufferSize(SEND_BUFFER_BYTES)).build().start();
            if (!server.isRunning()) {
                throw new UncheckedIOException(new IOException("cannot listen on " + config.host() + ":" + config.port()
                        + ": the web server did not start (its log says why)"));
            }
            return new OpenAiServer(server, model, queue, metrics, deadline);
        } catch (RuntimeException e) {
            deadline.close();
            throw e;
        }
    }

    /**
     * Fails with the address when the port is taken. Helidon only logs a failed bind, with a stack
     * trace and no port in the message, and returns a server that is not running; trying the bind
     * first gives the one clear error instead.
     */
    private static void requireFreePort(ServeConfig config) {
        if (config.port() == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(config.host(), config.port()));
        } catch (IOException e) {
            throw new UncheckedIOException(new BindException("cannot listen on " + config.host() + ":" + config.port() + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
        }
    }

    /** Makes the server ready: from now on the API serves this model. */
    public void serve(ServedModel served) {
        if (!model.compareAndSet(null, served)) {
            throw new IllegalStateException("this server already serves '" + model.get().name() + "'");
        }
    }

    /** As {@link #serve(ServedModel)}, reporting how long the model took to load. */
    public void serve(ServedModel served, double loadSeconds) {
        serve(served);
        metrics.loaded(loadSeconds);
    }

    /**
     * The model is about to load from {@code source}: {@code /metrics} reports its weight bytes and,
     * from now on, its store client's reads, so the load's progress shows while it runs.
     */
    public void loadingFrom(CheckpointSource source) {
        metrics.include(source.store().metrics().registry());
        metrics.loading(source.manifest().weightBytes());
    }

    public int port() {
        return server.port();
    }

    /** Generations in progress and waiting, as {@code /metrics} reports them. */
    AdmissionQueue queue() {
        return queue;
    }

    private static void retrieveModel(ClientDeadline deadline, ServerRequest request, ServerResponse response, ServedModel served) {
        String id = request.path().path().substring("/v1/models/".length());
        if (!id.equals(served.name())) {
            throw ApiError.modelNotFound("model", "model '" + id + "' is not served here; this server serves '" + served.name() + "'");
        }
        Exchange.send(deadline, response, 200, Responses.model(served));
    }

    private static void noRoute(ServerRequest request, ServerResponse response) {
        String path = request.path().path();
        String method = request.prologue().method().text();
        String allowed = path.startsWith("/v1/models/") ? "GET" : METHODS.get(path);
        if (allowed != null) {
            response.header(HeaderNames.ALLOW, allowed);
            throw ApiError.methodNotAllowed("method " + method + " is not allowed on " + path + "; use " + allowed);
        }
        throw ApiError.notFound("no endpoint " + path + "; this server has GET /v1/models, GET /v1/models/{id},"
                + " POST /v1/completions, POST /v1/chat/completions, GET /health, GET /ready and GET /metrics");
    }

    /**
     * Answers an {@link ApiError} in OpenAI's form; lets a client that went away go with one note in
     * the access log line; logs anything else, with its stack trace, as the server's fault.
     */
    private static Handler guarded(ClientDeadline deadline, Handler handler) {
        return (request, response) -> {
            try {
                handler.handle(request, response);
            } catch (ApiError e) {
                sendUnlessSent(deadline, response, e);
            } catch (ClientGone e) {
                request.context().register(e);
                // Every request must be answered; a client that only stopped sending its body may still read this.
                e.answer().ifPresent(answer -> sendUnlessSent(deadline, response, answer));
            } catch (ServerConnectionException e) {
                // Helidon's word for a connection that broke while the answer was written.
                request.context().register(new ClientGone(e));
            } catch (RuntimeException e) {
                log.error("{} {} failed", request.prologue().method().text(), request.path().rawPath(), e);
                sendUnlessSent(deadline, response, ApiError.internal("the server failed: " + e));
            }
        };
    }

    private static void sendUnlessSent(ClientDeadline deadline, ServerResponse response, ApiError error) {
        try {
            if (!response.isSent()) {
                Exchange.send(deadline, response, error);
            }
        } catch (ClientGone gone) {
            // Nobody is left to tell.
        }
    }

    /** Stops serving; once is enough, later calls do nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop();
            deadline.close();
        }
    }
}

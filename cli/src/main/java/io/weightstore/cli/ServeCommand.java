package io.weightstore.cli;

import io.weightstore.jlama.JlamaModels;
import io.weightstore.jlama.serve.ApiKey;
import io.weightstore.jlama.serve.OpenAiServer;
import io.weightstore.jlama.serve.ServeConfig;
import io.weightstore.jlama.serve.ServedModel;
import io.weightstore.weights.loader.LoadOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore serve}: an OpenAI-compatible endpoint for one model. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Serve a model with Jlama behind an OpenAI-compatible HTTP API.",
            "Endpoints: GET /v1/models, GET /v1/models/{id}, POST /v1/completions and POST /v1/chat/completions (\"stream\": true",
            "gives server-sent events); GET /health (up), GET /ready (model loaded) and GET /metrics (Prometheus). Runs until",
            "stopped."
        })
final class ServeCommand implements Callable<Integer> {
    static final String API_KEY_ENV = "WEIGHTSTORE_API_KEY";
    /** How long a stop (SIGTERM, Ctrl-C) waits for the server to stop and the model's memory to be released. */
    private static final Duration SHUTDOWN = Duration.ofSeconds(10);

    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--model", required = true, paramLabel = "weightstore://ID|DIR", description = "The model to serve.")
    private String model;

    @Option(names = "--port", defaultValue = "8000", description = "HTTP port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", defaultValue = ServeConfig.DEFAULT_HOST, paramLabel = "HOST",
            description = "Address to listen on; 0.0.0.0 for every interface (then set an API key). Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--insecure",
            description = "Serve without an API key on an address other than loopback, so that anyone who reaches the port may"
                    + " use the model. Without it, such a serve refuses to start.")
    private boolean insecure;

    @Option(names = "--served-model-name", paramLabel = "NAME",
            description = "Model name in the API. Default: the checkpoint id (or directory name), with unsafe characters replaced.")
    private String servedName;

    @Option(names = "--max-concurrent", defaultValue = "" + ServeConfig.DEFAULT_MAX_CONCURRENT, paramLabel = "N",
            description = "Generations in progress at once; their passes through the model take turns. Default: ${DEFAULT-VALUE}.")
    private int maxConcurrent;

    @Option(names = "--max-queue", defaultValue = "" + ServeConfig.DEFAULT_MAX_QUEUE, paramLabel = "N",
            description = "Requests that may wait, in arrival order, for a generation; more get HTTP 429. Default: ${DEFAULT-VALUE}.")
    private int maxQueue;

    @Option(names = "--client-timeout", defaultValue = "" + ServeConfig.CLIENT_TIMEOUT_SECONDS + "s", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "The longest a client may take to send its whole request body, or to take any part of the answer (an"
                    + " event of a stream, a whole answer): past it its connection is closed and a generation streaming to it"
                    + " stops, so a stalled client holds no generation for good. Also how long a connection may wait for its next"
                    + " request line (the first one too), and the headers after a request line may take to arrive. Default:"
                    + " ${DEFAULT-VALUE}.")
    private Duration clientTimeout;

    @Option(names = "--max-connections", defaultValue = "" + ServeConfig.DEFAULT_MAX_CONNECTIONS, paramLabel = "N",
            description = "Client connections open at once; more wait to be accepted until one closes. Each phase of a connection"
                    + " is bounded by --client-timeout, so none holds a place for good. Default: ${DEFAULT-VALUE}.")
    private int maxConnections;

    // No default here: picocli would print a default value in --help, and this one is a secret.
    @Option(names = "--api-key", paramLabel = "KEY",
            description = "Require 'Authorization: Bearer KEY' on every /v1/ request (401 without it). Also from $" + API_KEY_ENV
                    + ", which, unlike a flag, other users cannot read in the process list.")
    private String apiKey;

    @Mixin
    private ServerLogging logging;

    @Override
    public Integer call() throws Exception {
        logging.enable();
        // An empty --api-key (a variable that was not set, say) is refused, not taken for "no key": that would serve unauthenticated.
        Optional<ApiKey> key = apiKey != null ? Optional.of(ApiKey.of(apiKey))
                : Optional.ofNullable(System.getenv(API_KEY_ENV)).filter(value -> !value.isEmpty()).map(ApiKey::of);
        ServeConfig config = new ServeConfig(bind, port, maxConcurrent, maxQueue, key, clientTimeout, maxConnections);
        String name = servedName != null ? servedName : ServedModel.nameFor(model);
        // What the arguments say wrong is said before the port is taken or the store opened, as a usage error.
        JlamaModels.checkReference(model);
        ServedModel.checkName(name);
        LoadOptions options = selection.loadOptions();
        PrintWriter out = spec.commandLine().getOut();
        if (config.apiKey().isEmpty() && !config.listensOnLoopback()) {
            if (!insecure) {
                throw new IllegalArgumentException("serving on " + bind + " without an API key lets anyone who reaches it use the model:"
                        + " set --api-key (or $" + API_KEY_ENV + "), or say --insecure");
            }
            out.printf("warning: --insecure on %s: anyone who can reach it may use the model%n", bind);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        try (OpenAiServer server = OpenAiServer.start(config)) {
            String url = "http://" + (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + server.port();
            out.printf("listening on %s; loading %s%n", url, model);
            out.flush();
            // The store client's reads (progress, failovers, checksum failures) join serve's own /metrics as the load starts.
            try (JlamaModels.Loaded loaded = JlamaModels.load(model, options, Optional.empty(), server::loadingFrom)) {
                server.serve(ServedModel.of(loaded.model(), name), loaded.loadSeconds());
                out.printf("serving %s as '%s' on %s/v1 (loaded in %.2f s)%s%n", model, name, url, loaded.loadSeconds(),
                        config.apiKey().isPresent() ? "; API key required" : "");
                out.flush();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    stopped.countDown();
                    // The JVM halts once its hooks return: the server's stop and the model's release must end first.
                    try {
                        released.await(SHUTDOWN.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
                stopped.await();
                // Requests in flight end with the server, not on weights unmapped under them by the model's close.
                server.close();
            }
        } finally {
            released.countDown();
        }
        return ExitCodes.OK;
    }
}

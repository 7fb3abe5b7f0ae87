package io.weightstore.cli;

import io.weightstore.jlama.JlamaModels;
import io.weightstore.jlama.OpenAiServer;
import io.weightstore.weights.loader.LoadOptions;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore serve}: an OpenAI-compatible endpoint for one model. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Serve a model with Jlama behind an OpenAI-compatible HTTP API.",
            "Endpoints: GET /v1/models, POST /v1/completions and POST /v1/chat/completions (\"stream\": true gives",
            "server-sent events). Runs until stopped."
        })
final class ServeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--model", required = true, paramLabel = "weightstore://ID|DIR", description = "The model to serve.")
    private String model;

    @Option(names = "--port", defaultValue = "8000", description = "HTTP port (0 for any free one). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "HOST", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    private String bind;

    @Option(names = "--served-model-name", paramLabel = "NAME",
            description = "Model name in the API. Default: the checkpoint id (or directory name), with unsafe characters replaced.")
    private String servedName;

    @Override
    public Integer call() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        try (JlamaModels.Loaded loaded = JlamaModels.load(model, LoadOptions.defaults().withStore(selection.store));
                OpenAiServer server = OpenAiServer.start(loaded.model(),
                        servedName != null ? servedName : OpenAiServer.servedName(model), bind, port)) {
            spec.commandLine().getOut().printf("serving %s as '%s' on http://%s:%d/v1 (loaded in %.2f s)%n", model,
                    server.modelName(), bind, server.port(), loaded.loadSeconds());
            spec.commandLine().getOut().flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return ExitCodes.OK;
    }
}

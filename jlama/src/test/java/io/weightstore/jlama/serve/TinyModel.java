package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.jlama.JlamaModels;
import io.weightstore.weights.loader.LoadOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A synthetic tiny Llama behind the API: random weights, so its text is noise, but greedy output is
 * deterministic. Its config is cut to a context of {@value #CONFIG_CONTEXT} tokens, so that prompts
 * which overflow it are short, and the turns that fill it few.
 */
final class TinyModel {
    static final String NAME = "tiny";
    static final int CONFIG_CONTEXT = 256;

    private TinyModel() {}

    static JlamaModels.Loaded load(Path dir) throws IOException {
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 5), dir, b -> {});
        Path config = dir.resolve("config.json");
        ObjectNode json = (ObjectNode) Http.JSON.readTree(config.toFile());
        Http.JSON.writeValue(config.toFile(), json.put("max_position_embeddings", CONFIG_CONTEXT));
        return JlamaModels.load(dir.toString(), LoadOptions.defaults());
    }

    static ServedModel served(JlamaModels.Loaded loaded) {
        return ServedModel.of(loaded.model(), NAME);
    }

    /** A started server, ready with the model. */
    static OpenAiServer serve(ServedModel model, ServeConfig config) {
        OpenAiServer server = OpenAiServer.start(config);
        server.serve(model);
        return server;
    }
}

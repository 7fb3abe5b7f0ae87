package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weightstore.jlama.Completion;
import java.util.List;

/**
 * The JSON objects of OpenAI's API that the server sends: models, completions and their stream
 * chunks. One generation request gives one id and one creation time to everything it sends.
 */
record Responses(Endpoint endpoint, String id, long created, String model) {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    static ObjectNode model(ServedModel served) {
        return JSON.objectNode().put("id", served.name()).put("object", "model").put("created", served.created())
                .put("owned_by", "weightstore");
    }

    static ObjectNode modelList(ServedModel served) {
        ObjectNode list = JSON.objectNode().put("object", "list");
        list.putArray("data").add(model(served));
        return list;
    }

    /** The whole answer of a request without streaming: every choice, and usage over all of them. */
    ObjectNode completion(List<Completion> choices) {
        ObjectNode root = header(endpoint.object);
        ArrayNode array = root.putArray("choices");
        for (int i = 0; i < choices.size(); i++) {
            Completion done = choices.get(i);
            ObjectNode choice = array.addObject().put("index", i);
            if (endpoint == Endpoint.CHAT) {
                choice.putObject("message").put("role", "assistant").put("content", done.text()).putNull("refusal");
            } else {
                choice.put("text", done.text());
            }
            choice.putNull("logprobs").put("finish_reason", done.finishReason());
        }
        root.set("usage", usage(choices));
        return root;
    }

    /**
     * A chunk of one choice's text. A chat choice's first chunk carries {@code role: assistant}, as
     * OpenAI's stream helpers need to assemble the message.
     */
    ObjectNode textChunk(int index, String text, boolean first, boolean withUsage) {
        ObjectNode root = header(endpoint.chunkObject);
        ObjectNode choice = root.putArray("choices").addObject().put("index", index);
        if (endpoint == Endpoint.CHAT) {
            ObjectNode delta = choice.putObject("delta");
            if (first) {
                delta.put("role", "assistant");
            }
            delta.put("content", text);
        } else {
            choice.put("text", text);
        }
        choice.putNull("logprobs").putNull("finish_reason");
        return withUsage ? root.putNull("usage") : root;
    }

    /** The last chunk of one choice: no text, why it ended. */
    ObjectNode finishChunk(int index, String finishReason, boolean withUsage) {
        ObjectNode root = header(endpoint.chunkObject);
        ObjectNode choice = root.putArray("choices").addObject().put("index", index);
        if (endpoint == Endpoint.CHAT) {
            choice.putObject("delta");
        } else {
            choice.put("text", "");
        }
        choice.putNull("logprobs").put("finish_reason", finishReason);
        return withUsage ? root.putNull("usage") : root;
    }

    /** The chunk {@code stream_options.include_usage} asks for, after all choices: no choices, only usage. */
    ObjectNode usageChunk(List<Completion> choices) {
        ObjectNode root = header(endpoint.chunkObject);
        root.putArray("choices");
        root.set("usage", usage(choices));
        return root;
    }

    /** The prompt counts once, as OpenAI counts it, though each choice processed it. */
    private static ObjectNode usage(List<Completion> choices) {
        int prompt = choices.isEmpty() ? 0 : choices.getFirst().promptTokens();
        int completion = choices.stream().mapToInt(Completion::generatedTokens).sum();
        return JSON.objectNode().put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
    }

    private ObjectNode header(String object) {
        return JSON.objectNode().put("id", id).put("object", object).put("created", created).put("model", model);
    }
}

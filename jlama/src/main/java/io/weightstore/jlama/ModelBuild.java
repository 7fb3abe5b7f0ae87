package io.weightstore.jlama;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.TensorInfo;
import com.github.tjake.jlama.safetensors.WeightLoader;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One build of a model by Jlama's {@code ModelSupport.loadModel}, which reports a model's bad files as
 * whatever its parts threw, often wrapped (reflection, {@code new RuntimeException(e)}) and without
 * saying which file it was reading: this tells them apart from the failures of the functions it was
 * handed, and turns them into a {@link ModelLoadException}.
 *
 * <p>Jlama reads config.json, then builds the tokenizer by reflection (from tokenizer.json and
 * tokenizer_config.json), then asks for its weight loader, then builds the model by reflection; which
 * file was at fault follows from how far it got.
 */
final class ModelBuild {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UNKNOWN_MODEL_TYPE = "No enum constant " + ModelSupport.ModelType.class.getCanonicalName() + ".";
    /** The tensor each model type Jlama runs embeds tokens through: its columns are the hidden size. */
    private static final List<String> EMBEDDINGS = List.of("model.embed_tokens.weight", "wte.weight",
            "embeddings.word_embeddings.weight");

    private final String reference;
    private final Path dir;
    // Jlama calls the functions it is handed on the thread that called it, so plain fields see what they did.
    private boolean weightsAsked;
    private RuntimeException ours;

    /**
     * @param reference the model as it was asked for, which the errors name
     * @param dir where Jlama reads config and tokenizer from
     */
    ModelBuild(String reference, Path dir) {
        this.reference = reference;
        this.dir = dir;
    }

    /** {@code function} as Jlama is handed it: its failures pass through as they are, since they are not the model's files'. */
    <T, R> Function<T, R> ours(Function<T, R> function) {
        return argument -> {
            try {
                return function.apply(argument);
            } catch (RuntimeException e) {
                ours = e;
                throw e;
            }
        };
    }

    /** The weight loader Jlama asks for once config and tokenizer are read. */
    Function<File, WeightLoader> weights(Function<File, WeightLoader> weights) {
        return ours(d -> {
            weightsAsked = true;
            return weights.apply(d);
        });
    }

    /** What to throw for a failure of {@code ModelSupport.loadModel}. */
    RuntimeException failed(RuntimeException failure) {
        if (failure == ours) {
            return failure;
        }
        Throwable root = unwrapped(failure);
        // The store's loader reads the weights while Jlama builds the model: its failure already names checkpoint and file.
        if (root instanceof UncheckedIOException read) {
            return read;
        }
        return new ModelLoadException(reference, fileAtFault(failure), reason(root), failure);
    }

    /**
     * Refuses a model whose config.json gives a hidden size its weights do not have: Jlama reads
     * tensors without checking their shapes, and the mismatch would fail only the first generation, as
     * a bare {@code IllegalArgumentException} from deep inside a layer.
     */
    void checkFits(AbstractModel model) {
        int hidden = model.getConfig().embeddingLength;
        var tensors = model.getWeights().tensorInfoMap();
        for (String name : EMBEDDINGS) {
            TensorInfo embedding = tensors.get(name);
            if (embedding != null && embedding.shape.length == 2 && embedding.shape[1] != hidden) {
                throw new ModelLoadException(reference, "config.json", "it gives a hidden size of " + hidden
                        + ", but the weights' " + name + " is " + Arrays.toString(embedding.shape), null);
            }
        }
    }

    /** Below the wrappers that say nothing of their own: reflection's, and Jlama's {@code new RuntimeException(e)}. */
    private static Throwable unwrapped(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && isWrapper(t)) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean isWrapper(Throwable t) {
        boolean bareRuntime = t.getClass() == RuntimeException.class
                && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()));
        return bareRuntime || t instanceof InvocationTargetException || t instanceof UndeclaredThrowableException
                || t instanceof ExecutionException || t instanceof CompletionException;
    }

    private String fileAtFault(Throwable failure) {
        if (weightsAsked) {
            return null;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            // Before the weights, only the tokenizer is built by reflection.
            if (t instanceof InvocationTargetException) {
                return tokenizerFileAtFault();
            }
        }
        return "config.json";
    }

    /** The tokenizer is built from two files; which one, when one is missing or not JSON (checked only once it failed). */
    private String tokenizerFileAtFault() {
        Path config = dir.resolve("tokenizer_config.json");
        if (Files.isRegularFile(dir.resolve("tokenizer.json")) && isJson(dir.resolve("tokenizer.json")) && Files.exists(config)
                && !isJson(config)) {
            return "tokenizer_config.json";
        }
        return "tokenizer.json";
    }

    private static boolean isJson(Path file) {
        try {
            JSON.readTree(file.toFile());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String reason(Throwable root) {
        return switch (root) {
            case JsonProcessingException json -> jsonReason(json);
            case IllegalArgumentException e when e.getMessage() != null && e.getMessage().startsWith(UNKNOWN_MODEL_TYPE) ->
                    "model_type " + e.getMessage().substring(UNKNOWN_MODEL_TYPE.length()).toLowerCase(Locale.ROOT)
                            + " is not one Jlama runs (" + Arrays.stream(ModelSupport.ModelType.values())
                                    .map(type -> type.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", ")) + ")";
            default -> root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        };
    }

    /**
     * Jackson's message without its location, which only says that the source is not shown ("Source:
     * REDACTED …"), and with the line, column and field it failed at instead.
     */
    private static String jsonReason(JsonProcessingException json) {
        String message = json.getOriginalMessage().replaceAll("\\[Source: .*?; (line: \\d+, column: \\d+)]", "$1");
        List<String> at = new ArrayList<>();
        if (json.getLocation() != null) {
            at.add("line " + json.getLocation().getLineNr() + ", column " + json.getLocation().getColumnNr());
        }
        if (json instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            at.add("field " + mapping.getPath().stream().map(ModelBuild::pathPart).collect(Collectors.joining(".")));
        }
        return at.isEmpty() ? message : message + " (" + String.join(", ", at) + ")";
    }

    private static String pathPart(JsonMappingException.Reference reference) {
        return reference.getFieldName() != null ? reference.getFieldName() : "[" + reference.getIndex() + "]";
    }
}

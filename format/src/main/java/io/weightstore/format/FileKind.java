package io.weightstore.format;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Set;

/** Whether a checkpoint file holds weights (streamed, never copied to local disk) or metadata (small, materialized). */
public enum FileKind {
    WEIGHT,
    METADATA;

    private static final Set<String> WEIGHT_SUFFIXES =
            Set.of(".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".h5", ".msgpack", ".onnx");

    public static FileKind of(String path) {
        String lower = path.toLowerCase(Locale.ROOT);
        int dot = lower.lastIndexOf('.');
        return dot >= 0 && WEIGHT_SUFFIXES.contains(lower.substring(dot)) ? WEIGHT : METADATA;
    }

    /** Lower case in manifests and reports: "weight", "metadata". */
    @JsonValue
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    static FileKind fromJson(String text) {
        for (FileKind kind : values()) {
            if (kind.json().equals(text)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("file kind '" + text + "' is neither 'weight' nor 'metadata'");
    }

    public static boolean isSafetensors(String path) {
        return path.toLowerCase(Locale.ROOT).endsWith(".safetensors");
    }
}

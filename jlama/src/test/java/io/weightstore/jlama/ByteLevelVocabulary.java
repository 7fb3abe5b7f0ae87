package io.weightstore.jlama;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tjake.jlama.safetensors.tokenizer.BPETokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A byte-level BPE {@code tokenizer.json}, as Llama 3's and Qwen2's: GPT-2's 256 byte pieces (ids 0-255), then the
 * piece of each merge in order, and a pre-tokenizer that ends in ByteLevel (theirs splits by a pattern first).
 */
final class ByteLevelVocabulary {
    private ByteLevelVocabulary() {}

    /** How the byte table spells byte {@code b}: itself when printable, else a character from U+0100 on. */
    static String spelled(int b) {
        return Character.toString(BPETokenizer.alteredBytes.getOrDefault(b, b));
    }

    /** Writes the tokenizer into {@code dir}, splitting by {@code splitPattern} first if there is one; returns its vocabulary. */
    static Map<String, Integer> write(Path dir, List<String> merges, Optional<String> splitPattern) throws IOException {
        Map<String, Integer> vocab = new LinkedHashMap<>();
        for (int b = 0; b < 256; b++) {
            vocab.put(spelled(b), b);
        }
        for (String merge : merges) {
            vocab.putIfAbsent(merge.replace(" ", ""), vocab.size());
        }
        Map<String, Object> model = new LinkedHashMap<>();
        model.put("type", "BPE");
        model.put("byte_fallback", false);
        model.put("vocab", vocab);
        model.put("merges", merges);
        List<Map<String, Object>> pretokenizers = new ArrayList<>();
        splitPattern.ifPresent(pattern -> pretokenizers.add(Map.of("type", "Split", "pattern", Map.of("Regex", pattern),
                "behavior", "Isolated", "invert", false)));
        pretokenizers.add(Map.of("type", "ByteLevel", "add_prefix_space", false, "trim_offsets", true, "use_regex", false));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("version", "1.0");
        json.put("added_tokens", List.of());
        json.put("pre_tokenizer", Map.of("type", "Sequence", "pretokenizers", pretokenizers));
        json.put("model", model);
        Files.writeString(dir.resolve("tokenizer.json"), new ObjectMapper().writeValueAsString(json));
        return vocab;
    }
}

package io.weightstore.format.synth;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small but complete SentencePiece-style BPE tokenizer in Hugging Face's {@code tokenizer.json}
 * format, as Llama uses: byte fallback for any character, printable ASCII as base pieces, and merges
 * that build word pieces until the vocabulary is full. Real enough for Jlama and HF tokenizers to
 * encode and decode any text.
 */
final class SynthTokenizer {
    static final String UNK = "<unk>";
    static final String BOS = "<s>";
    static final String EOS = "</s>";
    static final int BOS_ID = 1;
    static final int EOS_ID = 2;
    static final String SPACE = "\u2581";

    private static final int FIRST_PRINTABLE = 33;
    private static final int LAST_PRINTABLE = 126;
    private static final int SPECIAL_TOKENS = 3;
    private static final int BYTE_TOKENS = 256;
    static final int BASE_VOCAB = SPECIAL_TOKENS + BYTE_TOKENS + 1 + (LAST_PRINTABLE - FIRST_PRINTABLE + 1);

    private SynthTokenizer() {}

    /** The vocabulary (piece → id, in id order) and merges for a vocabulary of exactly {@code size} pieces. */
    record Vocabulary(Map<String, Integer> pieces, List<String> merges) {}

    static Vocabulary vocabulary(int size) {
        Map<String, Integer> pieces = new LinkedHashMap<>();
        pieces.put(UNK, 0);
        pieces.put(BOS, BOS_ID);
        pieces.put(EOS, EOS_ID);
        for (int b = 0; b < BYTE_TOKENS; b++) {
            pieces.put(String.format("<0x%02X>", b), pieces.size());
        }
        pieces.put(SPACE, pieces.size());
        for (int c = FIRST_PRINTABLE; c <= LAST_PRINTABLE; c++) {
            pieces.put(Character.toString(c), pieces.size());
        }
        List<String> merges = new ArrayList<>();
        // Grow pieces a letter at a time: "▁"+letter, then every known piece of the last round + letter.
        List<String> round = new ArrayList<>();
        round.add(SPACE);
        for (char c = 'a'; c <= 'z'; c++) {
            round.add(Character.toString(c));
        }
        while (pieces.size() < size) {
            List<String> next = new ArrayList<>();
            for (String left : round) {
                for (char c = 'a'; c <= 'z' && pieces.size() < size; c++) {
                    String merged = left + c;
                    if (!pieces.containsKey(merged)) {
                        pieces.put(merged, pieces.size());
                        merges.add(left + " " + c);
                        next.add(merged);
                    }
                }
            }
            round = next;
        }
        return new Vocabulary(pieces, merges);
    }

    static Map<String, Object> tokenizerJson(int vocabSize) {
        Vocabulary vocabulary = vocabulary(vocabSize);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("version", "1.0");
        json.put("truncation", null);
        json.put("padding", null);
        json.put("added_tokens", List.of(special(0, UNK), special(BOS_ID, BOS), special(EOS_ID, EOS)));
        json.put("normalizer", Map.of("type", "Sequence", "normalizers", List.of(
                Map.of("type", "Prepend", "prepend", SPACE),
                Map.of("type", "Replace", "pattern", Map.of("String", " "), "content", SPACE))));
        json.put("pre_tokenizer", null);
        json.put("post_processor", Map.of(
                "type", "TemplateProcessing",
                "single", List.of(Map.of("SpecialToken", Map.of("id", BOS, "type_id", 0)),
                        Map.of("Sequence", Map.of("id", "A", "type_id", 0))),
                "pair", List.of(Map.of("SpecialToken", Map.of("id", BOS, "type_id", 0)),
                        Map.of("Sequence", Map.of("id", "A", "type_id", 0)),
                        Map.of("SpecialToken", Map.of("id", BOS, "type_id", 1)),
                        Map.of("Sequence", Map.of("id", "B", "type_id", 1))),
                "special_tokens", Map.of(BOS, Map.of("id", BOS, "ids", List.of(BOS_ID), "tokens", List.of(BOS)))));
        json.put("decoder", Map.of("type", "Sequence", "decoders", List.of(
                Map.of("type", "Replace", "pattern", Map.of("String", SPACE), "content", " "),
                Map.of("type", "ByteFallback"),
                Map.of("type", "Fuse"),
                Map.of("type", "Strip", "content", " ", "start", 1, "stop", 0))));
        Map<String, Object> model = new LinkedHashMap<>();
        model.put("type", "BPE");
        model.put("dropout", null);
        model.put("unk_token", UNK);
        model.put("continuing_subword_prefix", null);
        model.put("end_of_word_suffix", null);
        model.put("fuse_unk", true);
        model.put("byte_fallback", true);
        model.put("vocab", vocabulary.pieces());
        model.put("merges", vocabulary.merges());
        json.put("model", model);
        return json;
    }

    static Map<String, Object> tokenizerConfigJson(int contextLength) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("add_bos_token", true);
        json.put("add_eos_token", false);
        json.put("bos_token", BOS);
        json.put("eos_token", EOS);
        json.put("unk_token", UNK);
        json.put("legacy", false);
        json.put("model_max_length", contextLength);
        json.put("tokenizer_class", "LlamaTokenizer");
        json.put("clean_up_tokenization_spaces", false);
        json.put("chat_template", "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content']"
                + " + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}");
        return json;
    }

    private static Map<String, Object> special(int id, String content) {
        Map<String, Object> token = new LinkedHashMap<>();
        token.put("id", id);
        token.put("content", content);
        token.put("single_word", false);
        token.put("lstrip", false);
        token.put("rstrip", false);
        token.put("normalized", false);
        token.put("special", true);
        return token;
    }
}

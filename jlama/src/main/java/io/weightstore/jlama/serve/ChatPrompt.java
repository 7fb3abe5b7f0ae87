package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import com.github.tjake.jlama.safetensors.tokenizer.TokenizerModel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Chat messages turned into the model's prompt through its chat template (or, for a model without
 * one, {@code role: text} lines ending with {@code assistant: }). Content is a string or an array of
 * text parts, joined by newlines; anything the server cannot feed the model (images, audio, tool
 * calls, names) is refused with an error naming where it is.
 */
final class ChatPrompt {
    private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content");

    private ChatPrompt() {}

    /** The roles a prompt can give text; OpenAI's {@code developer} is a system message under a newer name. */
    private enum Role {
        SYSTEM, USER, ASSISTANT
    }

    private record Message(Role role, String text) {
        /** The role as a template and the plain prompt name it: {@code system}, {@code user}, {@code assistant}. */
        String roleName() {
            return role.name().toLowerCase(Locale.ROOT);
        }
    }

    static PromptContext of(JsonNode body, AbstractModel model) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ApiError.invalid("messages", "'messages' is required and must be a non-empty array, found "
                    + (messages == null ? "none" : Fields.describe(messages)));
        }
        List<Message> parsed = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            parsed.add(message(messages.get(i), "messages[" + i + "]"));
        }
        TokenizerModel tokenizer = model.getTokenizer().getModel();
        Optional<String> template = tokenizer.promptTemplates().map(templates -> templates.get("default"));
        if (template.isEmpty()) {
            StringBuilder plain = new StringBuilder();
            parsed.forEach(m -> plain.append(m.roleName()).append(": ").append(m.text()).append('\n'));
            return PromptContext.of(plain.append("assistant: ").toString());
        }
        List<Map<String, Object>> messageMaps = parsed.stream()
                .map(m -> Map.<String, Object>of("role", m.roleName(), "content", m.text())).toList();
        return PromptContext.of(ChatTemplate.render(template.get(), messageMaps, tokenizer.eosToken()));
    }

    private static Message message(JsonNode message, String where) {
        if (!message.isObject()) {
            throw ApiError.invalid(where, where + " must be an object with 'role' and 'content', found " + Fields.describe(message));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = message.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!MESSAGE_FIELDS.contains(field.getKey()) && !field.getValue().isNull()) {
                throw ApiError.unsupported(where + "." + field.getKey(), where + "." + field.getKey()
                        + " is not supported by this server; a message has only 'role' and 'content'");
            }
        }
        Role role = switch (message.path("role").asText("")) {
            case "system", "developer" -> Role.SYSTEM;
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            case "tool", "function" -> throw ApiError.unsupported(where + ".role", where + ".role '" + message.get("role").asText()
                    + "' is not supported: this server has no tools");
            default -> throw ApiError.invalid(where + ".role", where + ".role must be system, developer, user or assistant, found "
                    + Fields.describe(message.path("role")));
        };
        return new Message(role, content(message.get("content"), where + ".content"));
    }

    private static String content(JsonNode content, String where) {
        if (content != null && content.isTextual()) {
            return content.textValue();
        }
        if (content == null || !content.isArray() || content.isEmpty()) {
            throw ApiError.invalid(where, where + " must be a string or a non-empty array of text parts, found "
                    + (content == null ? "none" : Fields.describe(content)));
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String at = where + "[" + i + "]";
            String type = part.path("type").asText("");
            if (!type.equals("text")) {
                throw ApiError.unsupported(at, at + " has type '" + type + "'; this server takes only text parts");
            }
            JsonNode text = part.get("text");
            if (text == null || !text.isTextual()) {
                throw ApiError.invalid(at + ".text", at + ".text must be a string, found "
                        + (text == null ? "none" : Fields.describe(text)));
            }
            texts.add(text.textValue());
        }
        return String.join("\n", texts);
    }
}

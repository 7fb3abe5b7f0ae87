package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.github.tjake.jlama.safetensors.prompt.PromptSupport;
import com.github.tjake.jlama.util.JsonSupport;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model's chat template rendered over messages as Jlama's {@code PromptSupport} renders it (the same Jinja
 * settings, Hugging Face's), except that what the messages say is text, never template: Jinjava by default renders
 * again any output that looks like a template, so a message holding <code>{{ 7*7 }}</code> reached the model as 49,
 * and one holding three nested loops kept a core busy with output of no bound, before any limit or deadline.
 */
final class ChatTemplate {
    private static final Logger log = LoggerFactory.getLogger(ChatTemplate.class);
    /** Far above what a template makes of a 16 MiB request body; a template that makes more is refused. */
    static final long MAX_OUTPUT_CHARS = 64L << 20;

    private static final Jinjava JINJA = new Jinjava(JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withLegacyOverrides(LegacyOverrides.newBuilder()
                    .withParseWhitespaceControlStrictly(true)
                    .withUseTrimmingForNotesAndExpressions(true)
                    .withUseSnakeCasePropertyNaming(true)
                    .withKeepNullableLoopValues(true)
                    .build())
            .withObjectMapper(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .setDefaultPrettyPrinter(JsonSupport.JlamaPrettyPrinter.INSTANCE))
            .withNestedInterpretationEnabled(false)
            .withMaxOutputSize(MAX_OUTPUT_CHARS)
            .build());

    static {
        // As Jlama's: a template's own complaint (roles that do not alternate, say) is logged, and the prompt rendered on.
        JINJA.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception", PromptSupport.class,
                "raiseException", String.class));
    }

    private ChatTemplate() {}

    /**
     * The prompt {@code template} makes of {@code messages} (each a map of {@code role} and {@code content}), ending with
     * the turn the model answers; the BOS token is left to the tokenizer, as Jlama does.
     */
    static String render(String template, List<Map<String, Object>> messages, String eosToken) {
        RenderResult result = JINJA.renderForResult(template, Map.of("messages", messages, "add_generation_prompt", true,
                "eos_token", eosToken, "bos_token", ""));
        for (TemplateError error : result.getErrors()) {
            if (error.getReason() == TemplateError.ErrorReason.OUTPUT_TOO_BIG) {
                throw ApiError.invalid("messages", "the model's chat template makes a prompt of more than " + MAX_OUTPUT_CHARS
                        + " characters of these messages");
            }
        }
        if (result.hasErrors()) {
            // As Jlama does: a template's other complaints are noted, and what it rendered is the prompt.
            log.debug("chat template errors: {}", result.getErrors());
        }
        return result.getOutput();
    }
}

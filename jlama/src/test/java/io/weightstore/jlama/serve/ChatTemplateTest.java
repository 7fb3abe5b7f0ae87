package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A model's chat template over the messages of a request: what the messages say reaches the model as text. */
class ChatTemplateTest {
    /** The shape of Llama 3's template: each turn between headers, then the assistant's header to answer under. */
    private static final String TEMPLATE = "{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
            + "{{ m['content'] | trim }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant"
            + "<|end_header_id|>\n\n{% endif %}";

    private static List<Map<String, Object>> user(String content) {
        return List.of(Map.of("role", "user", "content", content));
    }

    @Test
    void messagesAreRenderedInTurnsEndingWithTheAssistantsTurn() {
        String prompt = ChatTemplate.render(TEMPLATE, List.of(Map.of("role", "system", "content", "Be brief."),
                Map.of("role", "user", "content", "Hi")), "<|eot_id|>");

        assertThat(prompt).isEqualTo("<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void templateSyntaxInAMessageIsPassedOnAsTextNotRun() {
        String content = "{{ 7*7 }} {% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}x"
                + "{% endfor %}{% endfor %}{% endfor %}";

        assertThat(ChatTemplate.render(TEMPLATE, user(content), "")).contains("\n\n" + content + "<|eot_id|>");
    }

    /** As Jlama renders: a template's own fault (an unknown filter, say) is noted, not the request's. */
    @Test
    void aTemplatesOwnErrorsLeaveWhatItRendered() {
        assertThat(ChatTemplate.render("{{ messages[0]['content'] | no_such_filter }}!", user("Hi"), "")).endsWith("!");
    }

    @Test
    void aTemplateThatWouldOutgrowItsBoundIsRefusedAsABadRequest() {
        String endless = "{% for a in range(100000) %}{% for b in range(100000) %}{{ messages[0]['content'] }}{% endfor %}{% endfor %}";

        assertThatThrownBy(() -> ChatTemplate.render(endless, user("x".repeat(1 << 10)), "")).isInstanceOf(ApiError.class)
                .hasMessageContaining("the model's chat template makes a prompt of more than");
    }
}

package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tjake.jlama.model.AbstractModel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Chat messages through the tiny model's own chat template, as a chat completion turns them into its prompt. */
class ChatPromptTest {
    @TempDir
    static Path dir;

    @RegisterExtension
    static final LoadedTinyModel TINY = new LoadedTinyModel(() -> dir);

    private static String prompt(String messages) throws Exception {
        JsonNode body = Http.JSON.readTree("{\"messages\":" + messages + "}");
        return ChatPrompt.of(body, TINY.served().model()).getPrompt();
    }

    @Test
    void messagesMakeThePromptJlamasOwnTemplateSupportMakes() throws Exception {
        AbstractModel model = TINY.served().model();
        String jlamas = model.promptSupport().orElseThrow().builder().addSystemMessage("Be brief.").addUserMessage("Hi").build()
                .getPrompt();

        assertThat(prompt("[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hi\"}]"))
                .isEqualTo(jlamas).isEqualTo("<|system|>\nBe brief.\n<|user|>\nHi\n<|assistant|>\n");
    }

    @Test
    void templateSyntaxInAMessageReachesTheModelAsTheTextItIs() throws Exception {
        assertThat(prompt("[{\"role\":\"user\",\"content\":\"{{ 7*7 }} {% if true %}yes{% endif %}\"}]"))
                .isEqualTo("<|user|>\n{{ 7*7 }} {% if true %}yes{% endif %}\n<|assistant|>\n");
    }
}

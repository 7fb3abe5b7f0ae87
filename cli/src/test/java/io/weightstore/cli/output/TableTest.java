package io.weightstore.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void aCellWithControlCharactersStaysOnItsRowWithThemEscaped() {
        StringWriter text = new StringWriter();
        new Table("ID", "MODEL").row("a", "org/x\nb\u001b[31m").print(new PrintWriter(text));
        assertThat(text.toString().lines()).containsExactly("ID  MODEL", "a   org/x\\u000ab\\u001b[31m");
    }
}

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

    @Test
    void columnsLineUpAfterWideAndCombiningCharacters() {
        StringWriter text = new StringWriter();
        new Table("MODEL", "SIZE").alignRight("SIZE").row("通义/千问", 7).row("cafe\u0301/x", 12).row("org/model", 345)
                .print(new PrintWriter(text));
        // 通义/千问 takes nine columns, café/x (an e and a combining accent) six, as org/model takes nine.
        assertThat(text.toString().lines()).containsExactly(
                "MODEL      SIZE",
                "通义/千问     7",
                "cafe\u0301/x       12",
                "org/model   345");
    }
}

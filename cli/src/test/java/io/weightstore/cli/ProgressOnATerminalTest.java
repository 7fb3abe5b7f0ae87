package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress bar is drawn where stderr is a terminal, whatever stdout is: run under script(1),
 * which gives the command a terminal, with one of the two streams sent elsewhere.
 */
class ProgressOnATerminalTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void scriptIsThere() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "script(1) (util-linux) is not installed");
    }

    @Test
    void stderrSentToAFileGetsNoBarThoughStdoutIsATerminal() throws Exception {
        Path err = tmp.resolve("err.txt");
        run("2>" + err, "synth", "--out", tmp.resolve("a").toString(), "--size", "32M");

        assertThat(Files.readString(err)).doesNotContain("\r").doesNotContain("synth [");
    }

    @Test
    void stderrOnATerminalGetsTheBarThoughStdoutIsAPipe() throws Exception {
        String terminal = run("| cat >/dev/null", "synth", "--out", tmp.resolve("b").toString(), "--size", "32M");

        assertThat(terminal).contains("\rsynth [", "100.0%");
    }

    /** What script(1) saw on the terminal it gave the command, whose shell line ends with {@code redirection}. */
    private String run(String redirection, String... args) throws Exception {
        Path log = tmp.resolve("terminal.log");
        // script runs one shell line: the java command line (no spaces in its parts here), then the redirection.
        List<String> wrapper = List.of("sh", "-c", "exec script -qec \"$* " + redirection + "\" /dev/null", "sh");
        CliProcess process = CliProcess.start(log, Map.of(), wrapper, args);
        assertThat(process.await()).as(process.output()).isZero();
        return process.output();
    }
}

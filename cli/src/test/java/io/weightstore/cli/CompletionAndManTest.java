package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Shell completion and manual pages come from the commands themselves, so they cover every verb and flag. */
class CompletionAndManTest {
    @TempDir
    Path tmp;

    /** Every user's command path under the root: "master", "model import", "store node forget" ... (not the launcher's hidden ones). */
    private static List<List<String>> commandPaths(CommandLine command, List<String> prefix) {
        List<List<String>> paths = new ArrayList<>();
        command.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandName().equals(name) && !sub.getCommandSpec().usageMessage().hidden()) { // aliases would repeat a command
                List<String> path = new ArrayList<>(prefix);
                path.add(name);
                paths.add(path);
                paths.addAll(commandPaths(sub, path));
            }
        });
        return paths;
    }

    @Test
    void theBashScriptCompletesEveryVerbAndItsFlags() throws Exception {
        CliRun run = CliRun.of("completion", "bash");
        assertThat(run.exitCode()).isZero();
        String script = run.out();
        List<List<String>> paths = commandPaths(WeightstoreCli.unconfigured(), List.of());
        assertThat(paths).extracting(p -> String.join(" ", p)).contains("master", "node", "gateway", "serve", "config check",
                "completion", "man", "store node forget");
        for (List<String> path : paths) {
            assertThat(script).as("completion of weightstore %s", String.join(" ", path))
                    .contains("function _picocli_weightstore_" + String.join("_", path) + "()");
        }

        Path file = Files.writeString(tmp.resolve("weightstore.bash"), script);
        assertThat(complete(file, "weightstore", "ma")).contains("master", "man");
        assertThat(complete(file, "weightstore", "help", "mo")).containsExactly("model");
        List<String> masterFlags = complete(file, "weightstore", "master", "--");
        for (OptionSpec option : WeightstoreCli.unconfigured().getSubcommands().get("master").getCommandSpec().options()) {
            assertThat(masterFlags).contains(option.longestName());
        }

        assertThat(CliRun.of("completion", "zsh").out()).startsWith("autoload -U +X compinit && compinit\n").contains(script);
        CliRun fish = CliRun.of("completion", "fish");
        assertThat(fish.exitCode()).isEqualTo(2);
        assertThat(fish.err()).contains("no completion for shell 'fish'; give bash or zsh");
    }

    /** What bash offers for the last word, with the script sourced. */
    private static List<String> complete(Path script, String... words) throws Exception {
        String line = String.join(" ", words);
        String program = "source " + script + " 2>/dev/null\nCOMP_WORDS=(" + line + ")\nCOMP_CWORD=" + (words.length - 1) + "\nCOMP_LINE='"
                + line + "'\nCOMP_POINT=" + line.length() + "\n_complete_weightstore 2>/dev/null\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process bash = new ProcessBuilder("bash", "-c", program).redirectErrorStream(false).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor()).isZero();
        return out.lines().toList();
    }

    @Test
    void manualPagesAreAsciiDocOfEveryCommand() throws Exception {
        CliRun master = CliRun.of("man", "master");
        assertThat(master.exitCode()).isZero();
        assertThat(master.out()).contains(":doctype: manpage", "= weightstore-master(1)", "*--metrics-port*", "*--config*",
                "*--log-format*");
        assertThat(CliRun.of("man", "model", "import").out()).contains("= weightstore-model-import(1)");
        CliRun unknown = CliRun.of("man", "nosuch");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("no command 'weightstore nosuch'");

        Path dir = tmp.resolve("man");
        assertThat(CliRun.of("man", "--dir", dir.toString()).exitCode()).isZero();
        for (List<String> path : commandPaths(WeightstoreCli.unconfigured(), List.of())) {
            assertThat(dir.resolve("weightstore-" + String.join("-", path) + ".adoc")).exists();
        }
        assertThat(dir.resolve("weightstore.adoc")).exists();
    }
}

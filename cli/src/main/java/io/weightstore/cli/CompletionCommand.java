package io.weightstore.cli;

import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore completion bash|zsh}: the shell completion script, made from the commands themselves. */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {
            "Print a completion script for every verb and flag: source it, or keep it where the shell finds it.",
            "  bash:  source <(weightstore completion bash)     or  weightstore completion bash > /etc/bash_completion.d/weightstore",
            "  zsh:   source <(weightstore completion zsh)      (through zsh's bashcompinit)"
        })
final class CompletionCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "bash|zsh", description = "The shell.")
    private String shell;

    @Override
    public Integer call() {
        String script = AutoComplete.bash("weightstore", WeightstoreCli.unconfigured());
        String text = switch (shell.toLowerCase(Locale.ROOT)) {
            case "bash" -> script;
            // picocli's script is bash's; zsh runs it through its bash completion emulation.
            case "zsh" -> "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script;
            default -> throw new IllegalArgumentException("no completion for shell '" + shell + "'; give bash or zsh");
        };
        spec.commandLine().getOut().print(text);
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}

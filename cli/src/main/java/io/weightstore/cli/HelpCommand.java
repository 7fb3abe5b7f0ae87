package io.weightstore.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code weightstore help [COMMAND...]}: the usage of the command the words name, however deep, so
 * that {@code help model import} shows what {@code model import --help} does. Picocli's own help
 * command takes one word and ignored the rest, showing {@code model}'s usage for it.
 */
@Command(name = "help", helpCommand = true, header = "Show the usage of a command: 'help model import' as 'model import --help'.",
        synopsisHeading = "%nUsage: ",
        description = {"%nWithout COMMAND, the usage of weightstore itself.%n"})
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean helpRequested;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "A command and its subcommands, as typed before --help.")
    private List<String> path = new ArrayList<>();

    private CommandLine self;
    private Help.ColorScheme colors;
    private PrintWriter out;

    @Override
    public void init(CommandLine helpCommandLine, Help.ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
        this.self = helpCommandLine;
        this.colors = colorScheme;
        this.out = out;
    }

    @Override
    public void run() {
        CommandLine command = self.getParent();
        for (String word : path) {
            CommandLine sub = command.getSubcommands().get(word);
            if (sub == null) {
                throw new ParameterException(self, "'" + String.join(" ", path) + "': " + command.getCommandName()
                        + " has no command '" + word + "'; its commands: " + String.join(", ", command.getSubcommands().keySet()));
            }
            command = sub;
        }
        command.usage(out, colors);
    }
}

package io.weightstore.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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

    @Parameters(paramLabel = "COMMAND", arity = "0..*", completionCandidates = Verbs.class,
            description = "A command and its subcommands, as typed before --help.")
    private List<String> path = new ArrayList<>();

    /** What a shell completes after 'help': the verbs, as picocli's completion offers them after its own help command. */
    static final class Verbs implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return visible(WeightstoreCli.unconfigured()).iterator();
        }
    }

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
                List<String> commands = visible(command);
                throw new ParameterException(self, "'" + String.join(" ", path) + "': " + command.getCommandName()
                        + (commands.isEmpty() ? " takes no command" : " has no command '" + word + "'; its commands: "
                                + String.join(", ", commands)));
            }
            command = sub;
        }
        command.usage(out, colors);
    }

    /** The subcommands of {@code command} that its usage lists. */
    private static List<String> visible(CommandLine command) {
        return command.getSubcommands().entrySet().stream().filter(sub -> !sub.getValue().getCommandSpec().usageMessage().hidden())
                .map(Map.Entry::getKey).toList();
    }
}

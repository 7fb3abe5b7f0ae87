package io.weightstore.cli;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * {@code weightstore man}: manual pages in AsciiDoc, from the same definitions as {@code --help}, so
 * they never drift from the flags. AsciiDoc rather than roff, since rendering needs Asciidoctor,
 * which the project does not ship: {@code asciidoctor -b manpage} makes roff where it is installed.
 */
@Command(name = "man", mixinStandardHelpOptions = true,
        description = {
            "Print the manual page of a command in AsciiDoc, or write one page per command with --dir.",
            "Render with Asciidoctor where it is installed:  weightstore man --dir man && asciidoctor -b manpage man/*.adoc"
        })
final class ManCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "VERB", arity = "0..*", description = "The command, such as 'master' or 'model import'. Default: weightstore itself.")
    private List<String> verbs = List.of();

    @Option(names = "--dir", paramLabel = "DIR", description = "Write weightstore.adoc and a page per command (weightstore-master.adoc ...) here.")
    private Path dir;

    @Override
    public Integer call() throws Exception {
        CommandLine root = WeightstoreCli.unconfigured();
        if (dir != null) {
            Files.createDirectories(dir);
            ManPageGenerator.generateManPage(dir.toFile(), (File) null, new boolean[0], true, root.getCommandSpec());
            spec.commandLine().getOut().printf("manual pages written to %s%n", dir);
            spec.commandLine().getOut().flush();
            return ExitCodes.OK;
        }
        CommandLine command = root;
        for (String verb : verbs) {
            command = command.getSubcommands().get(verb);
            if (command == null) {
                throw new IllegalArgumentException("no command 'weightstore " + String.join(" ", verbs) + "'; 'weightstore --help' lists them");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        ManPageGenerator.writeSingleManPage(out, command.getCommandSpec());
        out.flush();
        return ExitCodes.OK;
    }
}

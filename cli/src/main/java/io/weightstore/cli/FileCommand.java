package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the verbs that work on one local file. */
@Command(
        name = "file",
        description = "Work with local checkpoint files (inspect a safetensors file).",
        mixinStandardHelpOptions = true,
        subcommands = {FileInspectCommand.class})
final class FileCommand {}

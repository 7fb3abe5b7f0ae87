package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the verbs on configuration files. */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Configuration files: check one before a server reads it.",
        subcommands = {ConfigCheckCommand.class})
final class ConfigCommand {}

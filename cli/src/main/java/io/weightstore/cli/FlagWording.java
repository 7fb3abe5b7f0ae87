package io.weightstore.cli;

import java.lang.reflect.Field;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Says an argument check of the code below the CLI in the terms of the flag it is about: the
 * records and options classes check their arguments as {@code parallelFiles must be >= 1:
 * parallelFiles=0}, which names a Java field a user never typed. When the name is the field of one of
 * the command's options and the value is that option's, the message names the flag instead:
 * {@code --parallel-files must be >= 1, found 0}. Any other message is left as it is.
 */
final class FlagWording {
    /** "NAME must …: NAME=VALUE", the whole message. */
    private static final Pattern CHECK = Pattern.compile("(\\w+) (must .*): \\1=(\\S+)");

    private FlagWording() {}

    static String of(CommandSpec command, String message) {
        Matcher check = CHECK.matcher(message);
        if (!check.matches()) {
            return message;
        }
        for (OptionSpec option : command.options()) {
            if (option.userObject() instanceof Field field && field.getName().equals(check.group(1))
                    && Objects.equals(String.valueOf((Object) option.getValue()), check.group(3))) {
                return option.longestName() + " " + check.group(2) + ", found " + check.group(3);
            }
        }
        return message;
    }
}

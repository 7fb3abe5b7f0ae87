package io.weightstore.cli;

/**
 * A group of verbs that lives outside the product jar and joins the {@code weightstore} command when
 * its module is on the class path (the benchmarks do), found with {@link java.util.ServiceLoader}.
 */
public interface CommandPlugin {
    /** A picocli command object, added as a subcommand. */
    Object command();
}

package io.weightstore.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.LoggerFactory;

/**
 * The CLI's logging, set up in code rather than from a logback.xml (nothing to parse at start, and
 * one place that says what a line looks like). Logs go to standard error, whose standard output
 * is the command's own. The text form is the one line the CLI always printed
 * ({@code 2026-01-01T12:00:00.000 INFO MasterCore - node node-1 registered ...}); warnings only,
 * except for servers, which log their own events at info ({@link #serverLogging}).
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSS} %level %logger{0} - %msg%n";

    /** Called by logback when the first logger is made; follows {@value LogFormat#ENV}. */
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        apply(context, LogFormat.fromEnvironment());
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /**
     * For a long-running server: its own events (registrations, nodes going down, evictions, the
     * access log) at info, in {@code format}. Call before the server starts.
     */
    public static void serverLogging(LogFormat format) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        apply(context, format);
        context.getLogger("io.weightstore").setLevel(Level.INFO);
    }

    private static void apply(LoggerContext context, LogFormat format) {
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder(context, format));
        stderr.start();
        root.addAppender(stderr);
        root.setLevel(Level.WARN);
        // Jlama says once per run that its optional native kernels are absent; the Java ones are used.
        context.getLogger("com.github.tjake.jlama.tensor.operations.TensorOperationsProvider").setLevel(Level.ERROR);
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, LogFormat format) {
        if (format == LogFormat.JSON) {
            JsonLayout layout = new JsonLayout();
            layout.setContext(context);
            layout.start();
            LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
            encoder.setContext(context);
            encoder.setLayout(layout);
            encoder.start();
            return encoder;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(TEXT_PATTERN);
        encoder.start();
        return encoder;
    }
}

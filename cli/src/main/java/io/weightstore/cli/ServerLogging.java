package io.weightstore.cli;

import io.weightstore.cli.logging.LogFormat;
import io.weightstore.cli.logging.LogSetup;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * How a long-running server (master, node, gateway, serve) logs: its own events at info, where
 * other commands only warn, as text lines or as JSON lines.
 */
final class ServerLogging {
    /** Picocli's side of {@link LogFormat#parse}. */
    static final class FormatConverter implements ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            try {
                return LogFormat.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    @Option(names = "--log-format", paramLabel = "text|json", defaultValue = "text", converter = FormatConverter.class,
            description = "Log lines as text, or as one JSON object per line (time, level, logger, thread, message, exception) for "
                    + "a log shipper. Also from $" + LogFormat.ENV + ". Default: text.")
    LogFormat format;

    /** Call before the server's first logger is used. */
    void enable() {
        LogSetup.serverLogging(format);
    }
}

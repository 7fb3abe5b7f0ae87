package io.weightstore.cli.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * One JSON object per event, on one line: {@code time} (ISO-8601, UTC), {@code level},
 * {@code logger}, {@code thread}, {@code message}, and {@code exception} (the stack trace) when
 * there is one. The names are those log shippers (Loki, Fluent Bit, Vector, Elasticsearch) map
 * without configuration; logback's own JSON encoder writes epoch numbers and the unformatted
 * message template instead.
 */
final class JsonLayout extends LayoutBase<ILoggingEvent> {
    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public String doLayout(ILoggingEvent event) {
        StringWriter line = new StringWriter(256);
        try (JsonGenerator json = JSON.createGenerator(line)) {
            json.writeStartObject();
            json.writeStringField("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
            json.writeStringField("level", event.getLevel().toString());
            json.writeStringField("logger", event.getLoggerName());
            json.writeStringField("thread", event.getThreadName());
            json.writeStringField("message", event.getFormattedMessage());
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                json.writeStringField("exception", ThrowableProxyUtil.asString(thrown));
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing a log line to memory", e);
        }
        return line.append('\n').toString();
    }
}

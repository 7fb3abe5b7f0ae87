package io.weightstore.gateway.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/** Times as S3 writes them: HTTP dates in headers, ISO 8601 with milliseconds in XML. */
public final class HttpDates {
    /** RFC 9110's IMF-fixdate: always two-digit days, always GMT. */
    private static final DateTimeFormatter HTTP = DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private HttpDates() {}

    public static String http(Instant time) {
        return HTTP.format(time);
    }

    public static String iso(Instant time) {
        return ISO.format(time);
    }

    /** A date from a header such as {@code If-Modified-Since}; empty when absent or not a date (the header is then ignored). */
    public static Optional<Instant> parseHttp(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZonedDateTime.parse(text.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}

package io.weightstore.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations on the command line: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, or ISO-8601 ({@code PT1M}). */
final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(value);
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }
        try {
            return Duration.parse(text.strip());
        } catch (RuntimeException e) {
            throw new TypeConversionException("duration '" + text + "' is not a number with ms, s, m or h, nor ISO-8601 like PT1M");
        }
    }

    /** {@code duration} in the form this flag takes ({@code 10s}, {@code 2h}), as a person typed it, not ISO-8601. */
    static String shown(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 3_600_000 == 0 && millis > 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0 && millis > 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}

package io.weightstore.weights;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses sizes such as {@code 512M}, {@code 4GiB} or {@code 1048576} (binary units) and prints them back. */
public final class ByteSizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgtp]?)(?:i?b)?", Pattern.CASE_INSENSITIVE);
    private static final String UNITS = "KMGTP";

    private ByteSizes() {}

    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("size '" + text + "' is not a number of bytes with an optional unit K, M, G, T or P");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2).toUpperCase(Locale.ROOT);
        int shift = unit.isEmpty() ? 0 : 10 * (UNITS.indexOf(unit) + 1);
        double bytes = value * Math.pow(2, shift);
        if (bytes >= Long.MAX_VALUE) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return (long) bytes;
    }

    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        int exp = Math.min(UNITS.length(), (63 - Long.numberOfLeadingZeros(bytes)) / 10);
        return String.format(Locale.ROOT, "%.1f %siB", bytes / Math.pow(1024, exp), UNITS.charAt(exp - 1));
    }
}

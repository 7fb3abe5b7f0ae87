package io.weightstore.store.pool;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What /proc/self/smaps says about the mappings of this process that lie within a range of addresses. */
final class Smaps {
    private static final Pattern VMA = Pattern.compile("([0-9a-f]+)-([0-9a-f]+) ");

    private Smaps() {}

    /** The sum of the kB counters named {@code fields} (such as "AnonHugePages") over the mappings that start within {@code segment}. */
    static long kib(MemorySegment segment, String... fields) throws IOException {
        long total = 0;
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            Matcher vma = VMA.matcher(line);
            if (vma.lookingAt()) {
                long start = Long.parseUnsignedLong(vma.group(1), 16);
                inside = start >= segment.address() && start < segment.address() + segment.byteSize();
                continue;
            }
            for (String field : fields) {
                if (inside && line.startsWith(field + ":")) {
                    total += Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        return total;
    }

    /** Whether any mapping of this process covers a byte of {@code [start, end)}. */
    static boolean mapsAny(long start, long end) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            Matcher vma = VMA.matcher(line);
            if (vma.lookingAt() && Long.parseUnsignedLong(vma.group(1), 16) < end && start < Long.parseUnsignedLong(vma.group(2), 16)) {
                return true;
            }
        }
        return false;
    }
}

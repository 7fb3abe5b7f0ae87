package io.weightstore.store;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What /proc/self/smaps says about the mappings of this process that lie within a range of addresses. */
public final class Smaps {
    private static final Pattern VMA = Pattern.compile("([0-9a-f]+)-([0-9a-f]+) ");

    private Smaps() {}

    /** The sum of the kB counters named {@code fields} (such as "AnonHugePages") over the mappings that start within {@code segment}. */
    public static long kib(MemorySegment segment, String... fields) throws IOException {
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

    /** Whether a mapping of this process that covers a byte of {@code [start, end)} is advised to huge pages (flag hg). */
    public static boolean hugePageAdvised(long start, long end) throws IOException {
        boolean overlaps = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            Matcher vma = VMA.matcher(line);
            if (vma.lookingAt()) {
                overlaps = Long.parseUnsignedLong(vma.group(1), 16) < end && start < Long.parseUnsignedLong(vma.group(2), 16);
            } else if (overlaps && line.startsWith("VmFlags:") && List.of(line.substring("VmFlags:".length()).trim().split(" "))
                    .contains("hg")) {
                return true;
            }
        }
        return false;
    }
}

package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What pages a directory's files get in memory, as far as its mount says: a tmpfs mounted without
 * {@code huge=} holds files in 4 KiB pages, which costs sendfile and page faults a lookup per 4 KiB,
 * where a disk file system's page cache and a {@code huge=within_size} tmpfs use large folios.
 */
final class PageSizes {
    private PageSizes() {}

    /** The file system of {@code dir} and, for a tmpfs, its huge-page option; "unknown" when the mounts cannot be read. */
    static String describe(Path dir) {
        try {
            Path real = dir.toRealPath();
            String bestPoint = "";
            String best = "unknown";
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                List<String> fields = List.of(line.split(" "));
                if (fields.size() < 4) {
                    continue;
                }
                String point = fields.get(1);
                if (real.startsWith(point) && point.length() >= bestPoint.length()) {
                    bestPoint = point;
                    best = fields.get(2).equals("tmpfs") ? "tmpfs, " + huge(fields.get(3)) : fields.get(2);
                }
            }
            return best;
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String huge(String options) {
        for (String option : options.split(",")) {
            if (option.startsWith("huge=") && !option.equals("huge=never")) {
                return option;
            }
        }
        return "4 KiB pages";
    }
}

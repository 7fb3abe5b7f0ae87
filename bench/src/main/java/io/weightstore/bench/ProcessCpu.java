package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time (user and system) that processes have used, from Linux's {@code /proc/PID/stat}. On a
 * machine where the client and the servers share a few cores, what each path costs in CPU per byte
 * explains its throughput better than the throughput itself, which also depends on what else runs.
 */
final class ProcessCpu {
    /** The kernel's clock ticks per second for these counters (USER_HZ), 100 on Linux. */
    private static final double TICKS_PER_SECOND = 100;

    private ProcessCpu() {}

    /** Seconds of CPU used so far by {@code pids} together; a process that has ended counts as nothing. */
    static double seconds(List<Long> pids) throws IOException {
        double total = 0;
        for (long pid : pids) {
            String stat;
            try {
                stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            } catch (NoSuchFileException gone) {
                continue;
            }
            // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            total += (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
        }
        return total;
    }
}

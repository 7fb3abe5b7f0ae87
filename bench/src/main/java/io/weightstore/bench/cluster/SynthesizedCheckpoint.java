package io.weightstore.bench.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A synthetic checkpoint written by {@code weightstore synth} on one host of a bed, in that host's
 * private directory, and its files with their sizes.
 */
record SynthesizedCheckpoint(Path dir, Map<String, Long> files) {
    SynthesizedCheckpoint {
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
    }

    static SynthesizedCheckpoint make(HostBed bed, Host host, Path dir, String size) throws Exception {
        Host.Completed synth = host.run(Duration.ofMinutes(10), BedCluster.cli(bed, "synth", "--out", dir.toString(), "--size", size));
        if (synth.exitCode() != 0) {
            throw new IOException("synth failed (exit " + synth.exitCode() + "): " + HostProcess.tail(synth.output()));
        }
        Host.Completed listing = host.run(Duration.ofSeconds(30), "sh", "-c", "cd \"$1\" && stat -c '%s %n' *", "sh", dir.toString());
        if (listing.exitCode() != 0) {
            throw new IOException("listing the checkpoint failed: " + HostProcess.tail(listing.output()));
        }
        Map<String, Long> files = new LinkedHashMap<>();
        for (String line : listing.output().lines().toList()) {
            String[] f = line.split(" ", 2);
            files.put(f[1], Long.parseLong(f[0]));
        }
        return new SynthesizedCheckpoint(dir, files);
    }

    long bytes() {
        return files.values().stream().mapToLong(Long::longValue).sum();
    }
}

package io.weightstore.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a user with curl gets from an HTTP server: N curl processes at once, each fetching its share
 * of the Range requests over one kept-alive connection, to /dev/null. No memory receives the bytes,
 * so this flatters the server a little; the bench labels it so.
 */
final class CurlRangedGets {
    private final Path curl;
    private final int processes;
    private final long rangeBytes;

    private CurlRangedGets(Path curl, int processes, long rangeBytes) {
        this.curl = curl;
        this.processes = processes;
        this.rangeBytes = rangeBytes;
    }

    /** Null when curl is not installed. */
    static CurlRangedGets find(int processes, long rangeBytes) {
        Path curl = PeerProcess.find("curl");
        return curl == null ? null : new CurlRangedGets(curl, processes, rangeBytes);
    }

    /** Fetches {@code baseUrl/<file>} for every file, whole; fails unless every range came back whole. */
    void fetch(String baseUrl, List<String> files, List<Long> sizes) throws IOException, InterruptedException {
        List<List<String>> commands = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            commands.add(new ArrayList<>(List.of(curl.toString(), "--silent", "--show-error", "--fail", "--http1.1")));
        }
        long expected = 0;
        int next = 0;
        for (int f = 0; f < files.size(); f++) {
            for (long start = 0; start < sizes.get(f); start += rangeBytes) {
                long length = Math.min(rangeBytes, sizes.get(f) - start);
                List<String> command = commands.get(next++ % processes);
                if (command.size() > 5) {
                    command.add("--next");
                }
                command.addAll(List.of("--range", start + "-" + (start + length - 1), "--output", "/dev/null", "--write-out",
                        "%{size_download}\\n", baseUrl + "/" + files.get(f)));
                expected += length;
            }
        }
        List<Process> running = new ArrayList<>();
        for (List<String> command : commands) {
            if (command.size() > 5) {
                running.add(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
        }
        long received = 0;
        for (Process process : running) {
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            if (process.waitFor() != 0) {
                throw new IOException("curl exited with " + process.exitValue());
            }
            received += out.lines().mapToLong(Long::parseLong).sum();
        }
        if (received != expected) {
            throw new IOException("curl received " + received + " bytes, expected " + expected);
        }
    }
}

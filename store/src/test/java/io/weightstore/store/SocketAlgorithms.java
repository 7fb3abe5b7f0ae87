package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The TCP congestion control of the kernel's sockets, as {@code ss -ti} reports it: what a server's setting did, seen from outside. */
public final class SocketAlgorithms {
    private SocketAlgorithms() {}

    public static String hostDefault() throws IOException {
        return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
    }

    public static Set<String> available() throws IOException {
        return Set.of(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control")).strip().split(" "));
    }

    /**
     * The distinct algorithms of the established TCP sockets {@code filter} selects, in ss's filter syntax (such as
     * {@code sport = :9000}).
     */
    public static List<String> of(String filter) throws IOException, InterruptedException {
        Set<String> known = available();
        Process ss = new ProcessBuilder("ss", "-tinH", "state", "established", "( " + filter + " )").redirectErrorStream(true).start();
        String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ss.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ss.exitValue()).as(out).isZero();
        List<String> found = new ArrayList<>();
        // Each socket is a line of addresses, then an indented line of details, one of them the algorithm's name.
        for (String line : out.split("\n")) {
            if (line.startsWith("\t") || line.startsWith(" ")) {
                found.addAll(Arrays.stream(line.strip().split(" ")).filter(known::contains).limit(1).toList());
            }
        }
        assertThat(found).as("ss said:%n%s", out).isNotEmpty();
        return found.stream().distinct().toList();
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server's log: the same text lines as always by default, JSON lines when asked by flag or environment. */
class ServerLogFormatTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private String logLine(Map<String, String> environment, String... flags) throws Exception {
        String[] args = new String[] {"master", "--insecure", "--port", "0", "--data-dir", tmp.resolve("m" + flags.length + environment.size())
                .toString()};
        CliProcess master = CliProcess.start(tmp.resolve("master" + flags.length + environment.size() + ".log"), environment,
                concat(args, flags));
        try {
            Awaits.until(Duration.ofSeconds(60), "the master's first log line", () -> master.output().contains("master recovered"));
            return master.output().lines().filter(l -> l.contains("master recovered")).findFirst().orElseThrow();
        } finally {
            master.stop();
        }
    }

    @Test
    void textByDefaultJsonByFlagOrEnvironment() throws Exception {
        assertThat(logLine(Map.of())).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO MasterCore - master recovered .*");

        for (String line : new String[] {logLine(Map.of(), "--log-format", "json"), logLine(Map.of("WEIGHTSTORE_LOG_FORMAT", "json"))}) {
            JsonNode event = JSON.readTree(line);
            assertThat(Instant.parse(event.get("time").asText())).isBefore(Instant.now().plusSeconds(1));
            assertThat(event.get("level").asText()).isEqualTo("INFO");
            assertThat(event.get("logger").asText()).isEqualTo("io.weightstore.store.master.MasterCore");
            assertThat(event.get("thread").asText()).isNotEmpty();
            assertThat(event.get("message").asText()).startsWith("master recovered 0 nodes");
        }

        CliRun bad = CliRun.of("master", "--insecure", "--log-format", "xml", "--data-dir", tmp.resolve("x").toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("log format 'xml' is neither text nor json");
    }

    @Test
    void anInsecureServersWarningIsOneJsonEventWhenTheLogIsJson() throws Exception {
        CliProcess master = CliProcess.start(tmp.resolve("insecure.log"), "master", "--insecure", "--port", "0", "--data-dir",
                tmp.resolve("insecure").toString(), "--log-format", "json");
        try {
            Awaits.until(Duration.ofSeconds(60), "the master's first log line", () -> master.output().contains("master recovered"));
            String warning = master.output().lines().filter(l -> l.contains("running INSECURE")).findFirst().orElseThrow();
            JsonNode event = JSON.readTree(warning);
            assertThat(event.get("level").asText()).isEqualTo("WARN");
            assertThat(event.get("message").asText()).startsWith("master running INSECURE on port").contains("weightstore cert init");
            assertThat(master.output()).doesNotContain("  WARNING:");
        } finally {
            master.stop();
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.gateway.GatewayConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** {@code weightstore gateway}: its flags, its refusal to start open by accident, and a run over the embedded store. */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class GatewayCommandTest {
    private static final String SECRET = "gw-cli-secret-77/x+y";
    private static final Pattern LISTENING = Pattern.compile("listening on (http://[^:]+:\\d+)");

    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    @Test
    void helpExplainsEveryFlagAndNeverShowsTheSecret() throws Exception {
        CliProcess help = CliProcess.start(tmp.resolve("help.log"), Map.of(GatewayConfig.SECRET_KEY_ENV, SECRET,
                GatewayConfig.ACCESS_KEY_ENV, "reader"), "gateway", "--help");
        assertThat(help.await()).isZero();
        assertThat(help.output()).contains("--port", "--bind", "--bucket", "--access-key", "--secret-key", "--anonymous",
                "--max-concurrent", "--max-queue", "--chunk-size", "--store", "--connections", "--max-connections",
                "--tcp-congestion", GatewayConfig.SECRET_KEY_ENV, "Default: 127.0.0.1", "Default: weights").doesNotContain(SECRET);
    }

    @Test
    void refusesToStartWithoutAKeyOrAnonymousReads() {
        CliRun run = CliRun.of("gateway", "--port", "0");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("needs an access key", "--access-key", GatewayConfig.ACCESS_KEY_ENV, "--anonymous");
        CliRun half = CliRun.of("gateway", "--port", "0", "--access-key", "reader");
        assertThat(half.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(half.err()).contains("needs both its id and its secret");
        assertThat(CliRun.of("gateway", "--anonymous", "--bucket", "Bad_Bucket").err()).contains("bucket 'Bad_Bucket'");
    }

    @Test
    void refusesToStartWhenTheStoreDoesNotAnswerItsReads() {
        CliRun run = CliRun.of("gateway", "--anonymous", "--port", "0", "--store", "127.0.0.1:1");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("the gateway cannot read the store:", "connection refused");
        assertThat(run.out()).doesNotContain("listening on");
    }

    @Test
    void refusesATcpCongestionControlTheKernelLacksBeforeItListens() throws Exception {
        // A process of its own, with the launcher's flags: one that started serving would be stopped by await's deadline.
        CliProcess lacking = CliProcess.start(tmp.resolve("lacking.log"), "gateway", "--anonymous", "--port", "0", "--tcp-congestion",
                "no_such_cc");
        assertThat(lacking.await()).as(lacking.output()).isEqualTo(ExitCodes.USAGE);
        assertThat(lacking.output()).contains("gateway: the kernel refused TCP congestion control 'no_such_cc': it has no such"
                + " algorithm (available: ").doesNotContain("listening on");
    }

    @Test
    void servesAnImportedCheckpointFromItsOwnProcess() throws Exception {
        Path source = tmp.resolve("tiny");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 3), source, b -> {});
        CliRun imported = CliRun.of("model", "import", "--checkpoint-id", "tiny", "--model-id", "org/tiny", "--source", source.toString());
        assertThat(imported.exitCode()).as(imported.err()).isZero();

        CliProcess gateway = CliProcess.start(tmp.resolve("gateway.log"), Map.of(GatewayConfig.ACCESS_KEY_ENV, "reader",
                GatewayConfig.SECRET_KEY_ENV, SECRET), "gateway", "--port", "0", "--anonymous");
        try {
            String base = awaitListening(gateway);
            assertThat(base).startsWith("http://127.0.0.1:");
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<byte[]> config = get(http, base + "/weights/tiny/config.json", Map.of());
            assertThat(config.statusCode()).isEqualTo(200);
            assertThat(config.body()).isEqualTo(Files.readAllBytes(source.resolve("config.json")));
            HttpResponse<byte[]> forged = get(http, base + "/weights/tiny/config.json", Map.of("Authorization",
                    "AWS4-HMAC-SHA256 Credential=reader/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
                    "x-amz-date", "20260101T000000Z"));
            assertThat(forged.statusCode()).isEqualTo(403);
            // An access log line follows its response's last write, so the client can see a status before it is logged.
            awaitOutput(gateway, Pattern.compile(Pattern.quote("GET /weights/tiny/config.json 200")));
            awaitOutput(gateway, Pattern.compile(Pattern.quote("GET /weights/tiny/config.json 403")));
        } finally {
            gateway.stop();
        }
        assertThat(gateway.output()).as("run with the launcher's flags, the gateway reaches its socket to set cubic")
                .contains("signed with access key reader, or unsigned, TCP cubic)", "GET /weights/tiny/config.json 200",
                "GET /weights/tiny/config.json 403").doesNotContain(SECRET).doesNotContain("Exception");
    }

    private static String awaitListening(CliProcess process) throws Exception {
        return awaitOutput(process, LISTENING).group(1);
    }

    private static Matcher awaitOutput(CliProcess process, Pattern text) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher found = text.matcher(process.output());
            if (found.find()) {
                return found;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the gateway did not print " + text + " in 60 s:\n" + process.output());
    }

    private static HttpResponse<byte[]> get(HttpClient http, String url, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}

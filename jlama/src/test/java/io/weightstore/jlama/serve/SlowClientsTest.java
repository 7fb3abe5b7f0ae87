package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.jlama.JlamaModels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that hold on without doing their part: one that stops reading a stream, one that trickles
 * its body, one that keeps its connection and sends nothing more. Each must cost the server a bounded
 * time and never a generation slot for good.
 */
class SlowClientsTest {
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(1);

    @TempDir
    static Path tmp;

    private static JlamaModels.Loaded loaded;
    private static ServedModel model;

    @BeforeAll
    static void load() throws Exception {
        loaded = TinyModel.load(tmp.resolve("model"));
        model = TinyModel.served(loaded);
    }

    @AfterAll
    static void close() {
        loaded.close();
    }

    private static ServeConfig config() {
        return new ServeConfig("127.0.0.1", 0, 1, 1, Optional.empty(), CLIENT_TIMEOUT);
    }

    @Test
    void aClientThatStopsReadingItsStreamLosesItsConnectionAndItsGenerationSlot() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TinyModel.serve(model, config());
                var captured = new CapturedErr(log)) {
            // Eight choices of 200 tokens: a few hundred kilobytes of events, more than the two sockets' buffers hold.
            String body = "{\"prompt\":\"go on\",\"n\":8,\"max_tokens\":200,\"temperature\":0,\"stream\":true}";
            try (Socket stalled = new Socket()) {
                stalled.setReceiveBufferSize(4096);
                stalled.connect(new InetSocketAddress("127.0.0.1", server.port()));
                stalled.getOutputStream().write(Http.rawPost("/v1/completions", body));
                stalled.getOutputStream().flush();
                Eventually.holds(() -> server.queue().running() == 1);
                Eventually.holds(() -> server.queue().running() == 0);
            }
            Http http = new Http(server.port());
            assertThat(http.get("/metrics").body()).contains("weightstore_serve_generations_cancelled_total 1.0");
            Http.Reply next = http.post("/v1/completions", "{\"prompt\":\"after\",\"max_tokens\":3,\"temperature\":0}");
            assertThat(next.status()).isEqualTo(200);
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("POST /v1/completions 200"));
        }
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("(client took nothing of the answer for 1000 ms; connection closed; its generation stopped)")
                .doesNotContain("Exception").doesNotContain("ERROR");
    }

    @Test
    void aBodyThatTricklesIsCutAtTheClientTimeoutWithoutTakingASlot() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TinyModel.serve(model, config());
                var captured = new CapturedErr(log)) {
            try (Socket trickling = new Socket("127.0.0.1", server.port())) {
                trickling.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000\r\n\r\n{\"prompt\":").getBytes(StandardCharsets.UTF_8));
                trickling.getOutputStream().flush();
                trickling.setSoTimeout(20_000);
                assertThat(readUntilClosed(trickling.getInputStream())).as("the server closed the connection").isTrue();
            }
            assertThat(server.queue().running()).isZero();
            Http http = new Http(server.port());
            assertThat(http.get("/metrics").body()).contains("route=\"/v1/completions\",status=\"408\"");
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("POST /v1/completions 408")
                .contains("(client sent its body too slowly: not whole after 1000 ms; connection closed)")
                .doesNotContain("Exception").doesNotContain("ERROR");
    }

    @Test
    void aKeptAliveConnectionIdleForTheClientTimeoutIsClosed() throws Exception {
        try (OpenAiServer server = TinyModel.serve(model, config()); Socket idle = new Socket("127.0.0.1", server.port())) {
            idle.getOutputStream().write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            idle.setSoTimeout(20_000);
            InputStream in = idle.getInputStream();
            assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
            assertThat(readUntilClosed(in)).as("the server closed the connection").isTrue();
        }
    }

    /** Whether the peer closed (or reset) the connection before the socket's read timeout. */
    private static boolean readUntilClosed(InputStream in) throws IOException {
        byte[] buffer = new byte[4096];
        try {
            while (in.read(buffer) >= 0) {
                // whatever the server wrote before closing
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}

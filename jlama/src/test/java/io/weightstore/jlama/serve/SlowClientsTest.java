package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.CapturedErr;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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

    @RegisterExtension
    static final LoadedTinyModel TINY = new LoadedTinyModel(() -> tmp.resolve("model"));


    private static ServeConfig config() {
        return new ServeConfig("127.0.0.1", 0, 1, 1, Optional.empty(), CLIENT_TIMEOUT);
    }

    @Test
    void aClientThatStopsReadingItsStreamLosesItsConnectionAndItsGenerationSlot() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config());
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
                .contains("(client took the stream too slowly: it waited on the client for 1000 ms in all; connection closed; its"
                        + " generation stopped)")
                .doesNotContain("Exception").doesNotContain("ERROR");
    }

    @Test
    void aBodyThatTricklesIsCutAtTheClientTimeoutWithoutTakingASlot() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config());
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
    void aRequestTheQueueHasNoPlaceForIsRefusedBeforeItsBodyIsRead() throws Exception {
        ServeConfig noQueue = new ServeConfig("127.0.0.1", 0, 1, 0, Optional.empty(), Duration.ofSeconds(10));
        try (OpenAiServer server = TINY.serve(noQueue); Socket first = new Socket("127.0.0.1", server.port());
                Socket second = new Socket("127.0.0.1", server.port())) {
            // The first request's body is still on its way: it holds the one place there is.
            first.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"prompt\":").getBytes(StandardCharsets.UTF_8));
            first.getOutputStream().flush();
            Eventually.holds(() -> server.queue().waiting() == 1);
            second.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 16000000\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            second.getOutputStream().flush();
            second.setSoTimeout(5_000);
            assertThat(new String(second.getInputStream().readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 429");
        }
    }

    @Test
    void aBodyThatBreaksChunkedFramingIsABadRequestAndNoServerError() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config()); var captured = new CapturedErr(log)) {
            try (Socket client = new Socket("127.0.0.1", server.port())) {
                client.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
                client.setSoTimeout(5_000);
                assertThat(new String(client.getInputStream().readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 400");
            }
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("POST /v1/completions 400"));
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("ERROR");
    }

    @Test
    void aKeptAliveConnectionIdleForTheClientTimeoutIsClosed() throws Exception {
        try (OpenAiServer server = TINY.serve(config()); Socket idle = new Socket("127.0.0.1", server.port())) {
            idle.getOutputStream().write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            idle.setSoTimeout(20_000);
            InputStream in = idle.getInputStream();
            assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
            assertThat(readUntilClosed(in)).as("the server closed the connection").isTrue();
        }
    }

    @Test
    void aRequestLineThatTricklesIsCutAtTheClientTimeout() throws Exception {
        try (OpenAiServer server = TINY.serve(config()); Socket trickling = new Socket("127.0.0.1", server.port())) {
            try (var writer = trickle(trickling, "GET /health")) {
                trickling.setSoTimeout(20_000);
                assertThat(readUntilClosed(trickling.getInputStream())).as("the server closed the connection").isTrue();
            }
        }
    }

    @Test
    void headersThatTrickleAreCutAtTheClientTimeout() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config()); var captured = new CapturedErr(log)) {
            try (Socket trickling = new Socket("127.0.0.1", server.port());
                    var writer = trickle(trickling, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")) {
                trickling.setSoTimeout(20_000);
                assertThat(readUntilClosed(trickling.getInputStream())).as("the server closed the connection").isTrue();
            }
            assertThat(new Http(server.port()).get("/health").status()).as("the next client is served").isEqualTo(200);
        }
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("GET /health - (client sent its headers too slowly: not whole after 1000 ms; connection closed)")
                .doesNotContain("Exception").doesNotContain("ERROR");
    }

    @Test
    void aConnectionThatSendsManyRequestsWithinTheTimeoutEachIsAnsweredAndNoneIsCut() throws Exception {
        // Helidon's idle check reads a clock that ticks once a second, so the pauses stay a second short of the timeout.
        ServeConfig twoSeconds = new ServeConfig("127.0.0.1", 0, 1, 1, Optional.empty(), Duration.ofSeconds(2));
        try (OpenAiServer server = TINY.serve(twoSeconds); Socket client = new Socket("127.0.0.1", server.port())) {
            client.setSoTimeout(20_000);
            InputStream in = client.getInputStream();
            // Longer in all than the timeout: each request's deadline is its own.
            for (int i = 0; i < 6; i++) {
                client.getOutputStream().write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readWholeAnswer(in)).as("answer " + i).startsWith("HTTP/1.1 200");
                Thread.sleep(500);
            }
        }
    }

    @Test
    void connectionsBeyondTheCapWaitToBeAcceptedUntilOneCloses() throws Exception {
        ServeConfig oneConnection = new ServeConfig("127.0.0.1", 0, 1, 1, Optional.empty(), Duration.ofSeconds(30), 1);
        try (OpenAiServer server = TINY.serve(oneConnection); Socket waiting = new Socket()) {
            Socket first = new Socket("127.0.0.1", server.port());
            waiting.connect(new InetSocketAddress("127.0.0.1", server.port()));
            waiting.getOutputStream().write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            waiting.setSoTimeout(1_000);
            InputStream in = waiting.getInputStream();
            assertThatThrownBy(in::read).as("not accepted while the first connection is open").isInstanceOf(SocketTimeoutException.class);
            first.close();
            waiting.setSoTimeout(20_000);
            assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
        }
    }

    @Test
    void aClientThatPipelinesRequestsAndReadsNoAnswerIsCutAtTheClientTimeout() throws Exception {
        int requests = 2_000;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (OpenAiServer server = TINY.serve(config()); var captured = new CapturedErr(log); Socket greedy = new Socket()) {
            greedy.setReceiveBufferSize(4096);
            greedy.connect(new InetSocketAddress("127.0.0.1", server.port()));
            // Far more answers than the two sockets' buffers hold; written from a thread of its own, as the writes block too.
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    byte[] one = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                    for (int i = 0; i < requests; i++) {
                        greedy.getOutputStream().write(one);
                    }
                } catch (IOException closed) {
                    // the server closed the connection
                }
            });
            // Read nothing until the server has given up on this client.
            Eventually.holds(() -> log.toString(StandardCharsets.UTF_8).contains("took nothing of the answer"));
            greedy.setSoTimeout(20_000);
            String answers = readUntilClosedOrReset(greedy.getInputStream());
            writer.join();
            assertThat(answers.split("HTTP/1.1 200", -1).length - 1).as("answers before the server closed the connection")
                    .isPositive().isLessThan(requests);
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("(client took nothing of the answer for 1000 ms; connection closed)");
    }

    @Test
    void aBodyNoHandlerReadsIsNotWaitedForAndABodyReadWholeKeepsTheConnection() throws Exception {
        try (OpenAiServer server = TINY.serve(config())) {
            try (Socket trickling = new Socket("127.0.0.1", server.port());
                    var writer = trickle(trickling, "GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\nabc")) {
                trickling.setSoTimeout(20_000);
                String answer = readWholeAnswer(trickling.getInputStream());
                assertThat(answer).startsWith("HTTP/1.1 200").containsIgnoringCase("connection: close");
                assertThat(readUntilClosed(trickling.getInputStream())).as("the server closed the connection").isTrue();
            }
            try (Socket client = new Socket("127.0.0.1", server.port())) {
                client.setSoTimeout(20_000);
                client.getOutputStream().write(Http.rawPost("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":1}"));
                assertThat(readWholeAnswer(client.getInputStream())).startsWith("HTTP/1.1 200").doesNotContainIgnoringCase("connection: close");
                client.getOutputStream().write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readWholeAnswer(client.getInputStream())).as("the next request on the same connection").startsWith("HTTP/1.1 200");
            }
        }
    }

    /** A body the server did not read is not taken for the next request: a request inside a refused body is never served. */
    @Test
    void aRequestInsideABodyNoHandlerReadIsNotServed() throws Exception {
        String inner = "GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n";
        try (OpenAiServer server = TINY.serve(config()); Socket client = new Socket("127.0.0.1", server.port())) {
            client.setSoTimeout(20_000);
            client.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + inner.length() + "\r\n\r\n"
                    + inner).getBytes(StandardCharsets.US_ASCII));
            String answers = readUntilClosedOrReset(client.getInputStream());
            assertThat(answers.split("HTTP/1.1 ", -1).length - 1).as("answers, in " + answers).isEqualTo(1);
            assertThat(answers).startsWith("HTTP/1.1 200").doesNotContain("\"object\":\"list\"");
        }
    }

    /** The rest of a body too large to read is not read: the answer says the connection closes, and it does. */
    @Test
    void aBodyTooLargeIsAnswered413AndItsConnectionClosed() throws Exception {
        int declared = Exchange.MAX_BODY + (1 << 20);
        try (OpenAiServer server = TINY.serve(config()); Socket client = new Socket("127.0.0.1", server.port())) {
            client.setSoTimeout(20_000);
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    client.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + declared + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    client.getOutputStream().write(new byte[declared]);
                } catch (IOException closed) {
                    // the server closed the connection without reading the rest
                }
            });
            String answer = readWholeAnswer(client.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 413").containsIgnoringCase("connection: close");
            assertThat(readUntilClosed(client.getInputStream())).as("the server closed the connection").isTrue();
            writer.join();
        }
    }

    /** Writes {@code start}, then one more byte every 100 ms from a thread of its own until the connection fails or the result is closed. */
    private static AutoCloseable trickle(Socket socket, String start) throws IOException {
        socket.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Thread.sleep(100);
                    socket.getOutputStream().write('a');
                    socket.getOutputStream().flush();
                }
            } catch (IOException | InterruptedException stopped) {
                // the server closed the connection, or the test is done
            }
        });
        return writer::interrupt;
    }

    /** One answer with a Content-Length, read to its last byte so that the next read starts the next answer. */
    private static String readWholeAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return head.toString(StandardCharsets.US_ASCII) + "(closed)";
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(text);
        assertThat(length.find()).as("a Content-Length in " + text).isTrue();
        in.readNBytes(Integer.parseInt(length.group(1)));
        return text;
    }

    /** What arrives until the peer closes the connection, or resets it (as it does when it closes with requests unread). */
    private static String readUntilClosedOrReset(InputStream in) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException stillOpen) {
            throw stillOpen;
        } catch (IOException reset) {
            // what came before the reset is kept
        }
        return received.toString(StandardCharsets.US_ASCII);
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

package io.weightstore.jlama.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A response of server-sent events, as OpenAI streams: one {@code data: JSON} event per chunk,
 * flushed at once, and {@code data: [DONE]} at the end. A write that fails (Helidon reports a broken
 * connection as a {@link ServerConnectionException}) means the client is gone, and one the client
 * takes nothing of within the {@link ClientDeadline} that it is too slow; either way {@link ClientGone}
 * tells the generation feeding the stream.
 */
final class EventStream implements AutoCloseable {
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final ClientDeadline deadline;

    EventStream(ServerResponse response, ClientDeadline deadline) {
        this.deadline = deadline;
        response.header(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        response.header(HeaderNames.CACHE_CONTROL, "no-cache");
        this.out = response.outputStream();
    }

    void send(JsonNode event) {
        try {
            write(("data: " + Exchange.JSON.writeValueAsString(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    void done() {
        write(DONE);
    }

    private void write(byte[] bytes) {
        sent(() -> {
            out.write(bytes);
            out.flush();
        });
    }

    /** Ends the stream: its last chunk goes out, under the same deadline. */
    @Override
    public void close() {
        sent(out::close);
    }

    private void sent(SocketWrite write) {
        deadline.within(() -> {
            try {
                write.run();
            } catch (IOException | UncheckedIOException | ServerConnectionException e) {
                throw new ClientGone(e);
            }
        }, ClientGone::readTooSlowly);
    }

    private interface SocketWrite {
        void run() throws IOException;
    }
}

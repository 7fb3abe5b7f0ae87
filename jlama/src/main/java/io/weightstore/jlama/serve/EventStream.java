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
import java.time.Duration;

/**
 * A response of server-sent events, as OpenAI streams: one {@code data: JSON} event per chunk,
 * flushed at once, and {@code data: [DONE]} at the end. A write that fails (Helidon reports a broken
 * connection as a {@link ServerConnectionException}) means the client is gone; either way
 * {@link ClientGone} tells the generation feeding the stream. The generation holds a slot while it
 * waits on its client's socket, so the stream may wait on it for the {@link ClientDeadline}'s limit
 * in all, not per write: a client that takes a little now and then would otherwise keep the slot
 * for as long as it likes. One that reads as fast as the tokens come never waits.
 */
final class EventStream implements AutoCloseable {
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
    /** What a write gets once the budget is spent: enough to hand the bytes to a socket buffer with room. */
    private static final Duration AT_LEAST = Duration.ofMillis(1);

    private final OutputStream out;
    private final ClientDeadline deadline;
    /** How long the writes so far waited on the client. */
    private long waitedNanos;

    EventStream(ServerResponse response, ClientDeadline deadline) {
        this(streamOf(response), deadline);
    }

    EventStream(OutputStream out, ClientDeadline deadline) {
        this.out = out;
        this.deadline = deadline;
    }

    private static OutputStream streamOf(ServerResponse response) {
        response.header(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        response.header(HeaderNames.CACHE_CONTROL, "no-cache");
        return response.outputStream();
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
        Duration left = deadline.limit().minusNanos(waitedNanos);
        long start = System.nanoTime();
        try {
            deadline.within(left.compareTo(AT_LEAST) > 0 ? left : AT_LEAST, () -> {
                try {
                    write.run();
                } catch (IOException | UncheckedIOException | ServerConnectionException e) {
                    throw new ClientGone(e);
                }
                return null;
            }, ClientGone::keptTheStreamWaiting);
        } finally {
            waitedNanos += System.nanoTime() - start;
        }
    }

    private interface SocketWrite {
        void run() throws IOException;
    }
}

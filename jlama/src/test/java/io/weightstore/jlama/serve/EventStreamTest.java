package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A stream's generation holds a slot while it waits on its client, so the waits are bounded in all, not one by one. */
class EventStreamTest {
    /** A client that takes each write after {@code pause}, as one reading a little at a time does once the socket's buffer is full. */
    private static final class Sipping extends OutputStream {
        private final Duration pause;
        int writes;

        Sipping(Duration pause) {
            this.pause = pause;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                // As a virtual thread's socket write does when interrupted: the socket is closed, the write fails.
                throw new InterruptedIOException("closed");
            }
            writes++;
        }
    }

    @Test
    void aClientWhoseEveryWaitFitsTheLimitIsCutOnceTheWaitsAddUpToIt() {
        Sipping client = new Sipping(Duration.ofMillis(150));
        try (ClientDeadline deadline = new ClientDeadline(Duration.ofMillis(500))) {
            EventStream events = new EventStream(client, deadline);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    events.send(JsonNodeFactory.instance.objectNode().put("token", i));
                }
            }).isInstanceOf(ClientGone.class).hasMessageContaining("it waited on the client for 500 ms in all");
            assertThat(client.writes).as("writes taken before the cut").isBetween(1, 4);
        }
    }

    @Test
    void aClientThatKeepsUpIsNeverCut() {
        Sipping client = new Sipping(Duration.ZERO);
        // A thousand writes take milliseconds; the limit is far above that, so a busy machine's pauses do not count as the client's.
        try (ClientDeadline deadline = new ClientDeadline(Duration.ofSeconds(5))) {
            EventStream events = new EventStream(client, deadline);
            for (int i = 0; i < 1000; i++) {
                events.send(JsonNodeFactory.instance.objectNode().put("token", i));
            }
            events.done();
            assertThat(client.writes).isEqualTo(1001);
        }
    }
}

package io.weightstore.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Standard error copied into a buffer while open: slf4j-simple writes there (and Helidon, through it). */
public final class CapturedErr implements AutoCloseable {
    private final PrintStream original = System.err;

    public CapturedErr(ByteArrayOutputStream copy) {
        System.setErr(new PrintStream(new TeeStream(original, copy), true, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        System.setErr(original);
    }

    private static final class TeeStream extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        TeeStream(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}

package io.weightstore.store.wire;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/** Bytes as they are over a blocking socket: reads straight into the caller's buffer, files sent with sendfile. */
public final class PlainTransport implements Transport {
    private final SocketChannel socket;
    private final String peer;

    /** Takes over {@code socket}, which must be connected and in blocking mode. */
    public PlainTransport(SocketChannel socket) {
        if (!socket.isBlocking()) {
            throw new IllegalArgumentException("socket to " + Peers.address(socket) + " is non-blocking; a transport needs blocking I/O");
        }
        this.socket = socket;
        this.peer = Peers.address(socket);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return socket.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int length = src.remaining();
        while (src.hasRemaining()) {
            socket.write(src);
        }
        return length;
    }

    /** Sends from the file with sendfile; the mapping is not read. */
    @Override
    public void sendFile(FileChannel file, long position, MemorySegment bytes) throws IOException {
        sendFile(file, position, bytes.byteSize());
    }

    @Override
    public void sendFile(FileChannel file, long position, long count) throws IOException {
        long end = position + count;
        while (position < end) {
            long sent = file.transferTo(position, end - position, socket);
            if (sent <= 0) {
                throw new IOException("sendfile to " + peer + " made no progress at file offset " + position
                        + " (the file ends before " + end + "?)");
            }
            position += sent;
        }
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public Optional<SSLSession> session() {
        return Optional.empty();
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() {
        Peers.closeQuietly(socket);
    }
}

package io.weightstore.store.node;

import static io.weightstore.store.dataplane.DataPlane.CHECK_BYTES;
import static io.weightstore.store.dataplane.DataPlane.MAX_BODY;
import static io.weightstore.store.dataplane.DataPlane.MAX_CHECKS;
import static io.weightstore.store.dataplane.DataPlane.MAX_CHECK_BLOCK;
import static io.weightstore.store.dataplane.DataPlane.MAX_RANGES;
import static io.weightstore.store.dataplane.DataPlane.RANGE_BYTES;
import static io.weightstore.store.dataplane.DataPlane.REQUEST_HEADER_BYTES;

import io.weightstore.store.Checksums;
import io.weightstore.store.dataplane.DataPlane;
import io.weightstore.store.pool.PoolFile;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one data-plane connection: handshake, then requests until the peer closes or breaks the
 * protocol. Every length and count is checked before it is used; a broken frame only ends this
 * connection.
 */
final class RequestHandler implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(RequestHandler.class);
    private static final int STAGING_BYTES = 4 << 20;

    /** A request that cannot be served; {@code closeAfter} when the framing can no longer be trusted. */
    private static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        final byte status;
        final boolean closeAfter;

        Refusal(byte status, boolean closeAfter, String message) {
            super(message, null, false, false);
            this.status = status;
            this.closeAfter = closeAfter;
        }
    }

    private final SocketChannel socket;
    private final PoolFile pool;
    private final byte[] token;
    private final ByteBuffer header = ByteBuffer.allocate(REQUEST_HEADER_BYTES);
    private final ByteBuffer responseHeader = ByteBuffer.allocate(DataPlane.RESPONSE_HEADER_BYTES + DataPlane.MAX_MESSAGE);
    private ByteBuffer body = ByteBuffer.allocate(256);
    private ByteBuffer staging;

    RequestHandler(SocketChannel socket, PoolFile pool, byte[] token) {
        this.socket = socket;
        this.pool = pool;
        this.token = token;
    }

    @Override
    public void run() {
        try (socket) {
            if (!handshake()) {
                return;
            }
            while (readRequestHeader()) {
                try {
                    serve();
                } catch (Refusal refusal) {
                    respond(refusal.status, refusal.getMessage(), 0);
                    if (refusal.closeAfter) {
                        log.debug("closing data-plane connection from {}: {}", peer(), refusal.getMessage());
                        return;
                    }
                }
            }
        } catch (EOFException e) {
            log.debug("data-plane peer {} closed mid-frame", peer());
        } catch (IOException e) {
            log.debug("data-plane connection from {} ended: {}", peer(), e.getMessage());
        } catch (RuntimeException e) {
            log.error("data-plane connection from {} failed", peer(), e);
        }
    }

    private boolean handshake() throws IOException {
        ByteBuffer hello = ByteBuffer.allocate(8);
        readFully(hello.clear());
        int magic = hello.getInt(0);
        short version = hello.getShort(4);
        int tokenLength = Short.toUnsignedInt(hello.getShort(6));
        byte status = DataPlane.STATUS_OK;
        if (magic != DataPlane.MAGIC || tokenLength > DataPlane.MAX_TOKEN) {
            status = DataPlane.STATUS_BAD_REQUEST;
        } else if (version != DataPlane.VERSION) {
            status = DataPlane.STATUS_VERSION;
        } else {
            ByteBuffer presented = ByteBuffer.allocate(tokenLength);
            readFully(presented);
            if (token.length > 0 && !MessageDigest.isEqual(token, presented.array())) {
                status = DataPlane.STATUS_AUTH;
            }
        }
        ByteBuffer reply = ByteBuffer.allocate(8).putInt(DataPlane.MAGIC).putShort(DataPlane.VERSION).putShort(status).flip();
        writeFully(reply);
        if (status != DataPlane.STATUS_OK) {
            log.warn("refused data-plane handshake from {}: {}", peer(), DataPlane.statusName(status));
        }
        return status == DataPlane.STATUS_OK;
    }

    private boolean readRequestHeader() throws IOException {
        header.clear();
        int first = socket.read(header);
        if (first < 0) {
            return false;
        }
        readFully(header);
        return true;
    }

    private void serve() throws IOException, Refusal {
        byte op = header.get(0);
        int bodyLength = header.getInt(4);
        if (header.get(1) != 0 || header.getShort(2) != 0 || bodyLength < 0 || bodyLength > MAX_BODY) {
            throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "bad request header: op=" + op + " bodyLength=" + bodyLength);
        }
        if (body.capacity() < bodyLength) {
            body = ByteBuffer.allocate(bodyLength);
        }
        body.clear().limit(bodyLength);
        readFully(body);
        body.flip();
        switch (op) {
            case DataPlane.OP_READ -> read();
            case DataPlane.OP_READ_RANGES -> readRanges();
            case DataPlane.OP_READ_STRIDED -> readStrided();
            case DataPlane.OP_WRITE -> write();
            default -> throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "unknown op " + op);
        }
    }

    private void read() throws IOException, Refusal {
        need(16 + 4);
        long offset = body.getLong();
        long length = body.getLong();
        checkRange(offset, length);
        verify(readChecks());
        respond(DataPlane.STATUS_OK, null, length);
        sendFile(offset, length);
    }

    private void readRanges() throws IOException, Refusal {
        need(4);
        int count = body.getInt();
        if (count < 0 || count > MAX_RANGES) {
            throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "range count " + count + " outside 0.." + MAX_RANGES);
        }
        need((long) count * RANGE_BYTES + 4);
        long[] ranges = new long[count * 2];
        long total = 0;
        for (int i = 0; i < count; i++) {
            ranges[2 * i] = body.getLong();
            ranges[2 * i + 1] = body.getLong();
            checkRange(ranges[2 * i], ranges[2 * i + 1]);
            total += ranges[2 * i + 1];
        }
        verify(readChecks());
        respond(DataPlane.STATUS_OK, null, total);
        for (int i = 0; i < count; i++) {
            sendFile(ranges[2 * i], ranges[2 * i + 1]);
        }
    }

    private void readStrided() throws IOException, Refusal {
        need(28 + 4);
        long offset = body.getLong();
        long blockLength = body.getLong();
        long stride = body.getLong();
        int count = body.getInt();
        if (blockLength < 0 || stride < blockLength || count < 0) {
            throw new Refusal(DataPlane.STATUS_OUT_OF_RANGE, false, "strided read needs 0 <= blockLength <= stride and count >= 0: "
                    + "blockLength=" + blockLength + " stride=" + stride + " count=" + count);
        }
        long span = count == 0 ? 0 : stridedSpan(stride, count, blockLength);
        checkRange(offset, span);
        verify(readChecks());
        long total = blockLength * count;
        respond(DataPlane.STATUS_OK, null, total);
        // Rows are often small: gather them into a staging buffer instead of a syscall per row.
        ByteBuffer out = staging();
        MemorySegment data = pool.data();
        MemorySegment stage = MemorySegment.ofBuffer(out);
        for (int i = 0; i < count; i++) {
            long rowStart = offset + i * stride;
            long copied = 0;
            while (copied < blockLength) {
                int n = (int) Math.min(blockLength - copied, out.remaining());
                MemorySegment.copy(data, rowStart + copied, stage, out.position(), n);
                out.position(out.position() + n);
                copied += n;
                if (!out.hasRemaining()) {
                    writeFully(out.flip());
                    out.clear();
                }
            }
        }
        writeFully(out.flip());
    }

    private void write() throws IOException, Refusal {
        need(16);
        long offset = body.getLong();
        long length = body.getLong();
        try {
            checkRange(offset, length);
        } catch (Refusal refusal) {
            // The payload that follows cannot be skipped safely: end the connection.
            throw new Refusal(refusal.status, true, refusal.getMessage());
        }
        MemorySegment target = pool.data().asSlice(offset, length);
        long done = 0;
        while (done < length) {
            int n = (int) Math.min(length - done, 1 << 30);
            readFully(target.asSlice(done, n).asByteBuffer());
            done += n;
        }
        respond(DataPlane.STATUS_OK, null, 0);
    }

    private BlockCheckList readChecks() throws Refusal {
        need(4);
        int count = body.getInt();
        if (count < 0 || count > MAX_CHECKS) {
            throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "check count " + count + " outside 0.." + MAX_CHECKS);
        }
        if (body.remaining() != (long) count * CHECK_BYTES) {
            throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "body length does not match " + count + " checks: "
                    + body.remaining() + " bytes left, expected " + (long) count * CHECK_BYTES);
        }
        BlockCheckList checks = new BlockCheckList(count);
        for (int i = 0; i < count; i++) {
            long offset = body.getLong();
            int length = body.getInt();
            int crc = body.getInt();
            if (length < 0 || length > MAX_CHECK_BLOCK) {
                throw new Refusal(DataPlane.STATUS_OUT_OF_RANGE, false, "check block length " + length + " outside 0.."
                        + MAX_CHECK_BLOCK);
            }
            checkRange(offset, length);
            checks.add(offset, length, crc);
        }
        return checks;
    }

    private void verify(BlockCheckList checks) throws Refusal {
        for (int i = 0; i < checks.size(); i++) {
            int actual = Checksums.crc32c(pool.data().asSlice(checks.offset(i), checks.length(i)));
            if (actual != checks.crc(i)) {
                log.warn("checksum mismatch in pool {} at offset {} length {}: expected {} found {}", pool.path(),
                        checks.offset(i), checks.length(i), Integer.toHexString(checks.crc(i)), Integer.toHexString(actual));
                throw new Refusal(DataPlane.STATUS_CORRUPT, false, "checksum mismatch on node " + pool.nodeId() + " at pool offset "
                        + checks.offset(i) + " (block of " + checks.length(i) + " bytes)");
            }
        }
    }

    private void need(long bytes) throws Refusal {
        if (body.remaining() < bytes) {
            throw new Refusal(DataPlane.STATUS_BAD_REQUEST, true, "request body too short: " + body.remaining()
                    + " bytes left, need " + bytes);
        }
    }

    private void checkRange(long offset, long length) throws Refusal {
        if (offset < 0 || length < 0 || offset > pool.capacity() || length > pool.capacity() - offset) {
            throw new Refusal(DataPlane.STATUS_OUT_OF_RANGE, false, "range offset=" + offset + " length=" + length
                    + " is outside the pool of " + pool.capacity() + " bytes");
        }
    }

    private static long stridedSpan(long stride, int count, long blockLength) throws Refusal {
        try {
            return Math.addExact(Math.multiplyExact(stride, count - 1L), blockLength);
        } catch (ArithmeticException e) {
            throw new Refusal(DataPlane.STATUS_OUT_OF_RANGE, false, "strided range overflows");
        }
    }

    private void respond(byte status, String message, long payloadLength) throws IOException {
        byte[] text = message == null ? new byte[0] : message.getBytes(StandardCharsets.UTF_8);
        int textLength = Math.min(text.length, DataPlane.MAX_MESSAGE);
        responseHeader.clear().put(status).put((byte) 0).putShort((short) textLength).putLong(payloadLength)
                .put(text, 0, textLength).flip();
        writeFully(responseHeader);
    }

    private void sendFile(long offset, long length) throws IOException {
        long position = PoolFile.DATA_START + offset;
        long end = position + length;
        while (position < end) {
            long sent = pool.channel().transferTo(position, end - position, socket);
            if (sent <= 0) {
                throw new IOException("sendfile made no progress at pool offset " + (position - PoolFile.DATA_START));
            }
            position += sent;
        }
    }

    private ByteBuffer staging() {
        if (staging == null) {
            staging = ByteBuffer.allocateDirect(STAGING_BYTES);
        }
        return staging.clear();
    }

    private void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (socket.read(dst) < 0) {
                throw new EOFException("peer closed with " + dst.remaining() + " bytes of a frame missing");
            }
        }
    }

    private void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            socket.write(src);
        }
    }

    private String peer() {
        try {
            return String.valueOf(socket.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /** Checks parsed from one request, in flat arrays. */
    private static final class BlockCheckList {
        private final long[] offsets;
        private final int[] lengths;
        private final int[] crcs;
        private int size;

        BlockCheckList(int capacity) {
            offsets = new long[capacity];
            lengths = new int[capacity];
            crcs = new int[capacity];
        }

        void add(long offset, int length, int crc) {
            offsets[size] = offset;
            lengths[size] = length;
            crcs[size++] = crc;
        }

        int size() {
            return size;
        }

        long offset(int i) {
            return offsets[i];
        }

        int length(int i) {
            return lengths[i];
        }

        int crc(int i) {
            return crcs[i];
        }
    }
}

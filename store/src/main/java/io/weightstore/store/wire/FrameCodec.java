package io.weightstore.store.wire;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The data plane's frames, encoded and decoded for both ends: a small framed binary protocol over
 * TCP between clients and storage nodes. Integers are big-endian; offsets are relative to the start
 * of the node's pool data region.
 *
 * <pre>
 * Hello, client to node:   u32 MAGIC | u16 VERSION | u16 ticketLength (&le; MAX_TICKET) | u128 pool | session ticket (none when insecure)
 * Hello reply:             u32 MAGIC | u16 VERSION | u8 status | u8 switchToMac (1: both ends go on in {@link MacTransport})
 *
 * Request:   u8 op | u8 0 | u16 0 | u32 bodyLength (&le; MAX_BODY) | body [| payload, WRITE only]
 *   READ          u64 offset | u64 length | checks
 *   READ_RANGES   u32 count (&le; MAX_RANGES) | count x (u64 offset | u64 length) | checks
 *   READ_STRIDED  u64 offset | u64 blockLength | u64 stride | u32 count | checks
 *   WRITE         u64 offset | u64 length | u16 n | write grant (n bytes)   followed by length payload bytes
 *   checks:       u32 count (&le; MAX_CHECKS) | count x (u64 offset | u32 length | u32 crc32c)
 *
 * Response:  u8 status | u8 0 | u16 messageLength (&le; MAX_MESSAGE) | u64 payloadLength | message (UTF-8) | payload
 * </pre>
 *
 * <p>The hello names the pool the caller means to reach (its UUID, as the master records it for the
 * node), and a node that serves another answers {@link Status#WRONG_POOL}: offsets are only meaningful
 * in the pool they were allocated in, and a node replaced at the same address, or one that made its
 * pool again, would otherwise serve other bytes at them, or take a write over another object's. A
 * node still takes the hellos of version 2, which name no pool, so that a cluster upgrades one
 * process at a time: nodes first, then clients (a client of version 3 is refused by a node of 2).
 *
 * <p>Reads may carry the CRC32C of checksum blocks of the pool; the node verifies those blocks before
 * sending anything and answers {@link Status#CORRUPT} if one does not match, so the client moves to
 * another replica. The client sends only the blocks it wants part of (range edges, strided rows) and
 * checks the blocks it receives whole itself, so exactly the wanted bytes cross the network.
 *
 * <p>Decoding validates structure only (counts, lengths, that the body is consumed exactly); whether
 * an offset lies inside the pool is the node's to check. A frame that cannot be parsed fails with
 * {@link FrameException} whose {@code closeConnection} is set; a well-formed request for impossible
 * lengths fails with {@link Status#OUT_OF_RANGE} and leaves the connection usable.
 */
public final class FrameCodec {
    public static final int MAGIC = 0x57534450; // "WSDP"
    /** 2: tickets in the hello and write grants in WRITE; 3: the pool in the hello. */
    public static final short VERSION = 3;
    /** The oldest hello a node takes: version 2's differs only in naming no pool, and its clients get no check of it. */
    public static final short OLDEST_VERSION = 2;

    public static final int HELLO_BYTES = 8;
    private static final int HELLO_MAGIC = 0;
    private static final int HELLO_VERSION = 4;
    private static final int HELLO_TICKET_LENGTH = 6;
    private static final int HELLO_REPLY_STATUS = 6;
    private static final int HELLO_REPLY_MAC = 7;
    /** The pool's UUID, two longs, between the hello's header and its ticket. */
    private static final int HELLO_POOL_BYTES = 16;

    public static final int REQUEST_HEADER_BYTES = 8;
    private static final int REQUEST_OP = 0;
    private static final int REQUEST_RESERVED_BYTE = 1;
    private static final int REQUEST_RESERVED_SHORT = 2;
    private static final int REQUEST_BODY_LENGTH = 4;

    public static final int RESPONSE_HEADER_BYTES = 12;
    private static final int RESPONSE_STATUS = 0;
    private static final int RESPONSE_MESSAGE_LENGTH = 2;
    private static final int RESPONSE_PAYLOAD_LENGTH = 4;

    private static final int RANGE_BYTES = 16;
    private static final int CHECK_BYTES = 16;
    private static final int COUNT_BYTES = 4;
    private static final int READ_BYTES = 16;
    private static final int STRIDE_BYTES = 28;
    private static final int WRITE_BYTES = 18;

    public static final int MAX_TICKET = 1024;
    public static final int MAX_BODY = 1 << 20;
    public static final int MAX_RANGES = 16_384;
    public static final int MAX_CHECKS = 16_384;
    public static final int MAX_CHECK_BLOCK = 64 << 20;
    public static final int MAX_MESSAGE = 4096;

    /** A request header: which op, and how many body bytes follow it. */
    public record RequestHeader(Op op, int bodyLength) {}

    /** A hello's header: the version the caller speaks, and how many bytes follow (its pool, if any, and its ticket). */
    public record HelloHeader(short version, int restLength) {}

    /** What follows a hello's header: the pool the caller means to reach (none from a version 2 client), and its ticket. */
    public record Hello(Optional<UUID> pool, Ticket session) {}

    /** A response header: the status, then {@code messageLength} message bytes, then {@code payloadLength} payload bytes. */
    public record ResponseHeader(Status status, int messageLength, long payloadLength) {}

    private FrameCodec() {}

    // ---- handshake

    public static ByteBuffer encodeHello(UUID pool, Ticket session) {
        byte[] bytes = session.bytes();
        requireTicketSize(bytes);
        return ByteBuffer.allocate(HELLO_BYTES + HELLO_POOL_BYTES + bytes.length).putInt(MAGIC).putShort(VERSION)
                .putShort((short) bytes.length).putLong(pool.getMostSignificantBits()).putLong(pool.getLeastSignificantBits())
                .put(bytes).flip();
    }

    private static void requireTicketSize(byte[] ticket) {
        if (ticket.length > MAX_TICKET) {
            throw new IllegalArgumentException("ticket is " + ticket.length + " bytes, limit " + MAX_TICKET);
        }
    }

    /** A hello's header, after checking its magic and version. */
    public static HelloHeader decodeHelloHeader(ByteBuffer hello) throws FrameException {
        int ticketLength = Short.toUnsignedInt(hello.getShort(HELLO_TICKET_LENGTH));
        if (hello.getInt(HELLO_MAGIC) != MAGIC || ticketLength > MAX_TICKET) {
            throw new FrameException(Status.BAD_REQUEST, true, "not a weightstore data-plane hello (magic or ticket length)");
        }
        short version = hello.getShort(HELLO_VERSION);
        if (version < OLDEST_VERSION || version > VERSION) {
            throw new FrameException(Status.VERSION, true, "protocol version " + version + ", this node speaks " + OLDEST_VERSION
                    + " to " + VERSION);
        }
        return new HelloHeader(version, (version == VERSION ? HELLO_POOL_BYTES : 0) + ticketLength);
    }

    /** The rest of a hello, as many bytes as its header announced. */
    public static Hello decodeHelloRest(HelloHeader header, ByteBuffer rest) {
        if (header.version() < VERSION) {
            byte[] ticket = new byte[rest.limit()];
            rest.get(0, ticket);
            return new Hello(Optional.empty(), Ticket.of(ticket));
        }
        UUID pool = new UUID(rest.getLong(0), rest.getLong(Long.BYTES));
        byte[] ticket = new byte[rest.limit() - HELLO_POOL_BYTES];
        rest.get(HELLO_POOL_BYTES, ticket);
        return new Hello(Optional.of(pool), Ticket.of(ticket));
    }

    public static ByteBuffer encodeHelloReply(Status status) {
        return encodeHelloReply(new HelloReply(status, false));
    }

    public static ByteBuffer encodeHelloReply(HelloReply reply) {
        return ByteBuffer.allocate(HELLO_BYTES).putInt(MAGIC).putShort(VERSION).put(reply.status().code())
                .put((byte) (reply.switchToMac() ? 1 : 0)).flip();
    }

    /** The node's verdict on the hello; a reply without the magic is not from a weightstore node. */
    public static HelloReply decodeHelloReply(ByteBuffer reply) throws FrameException {
        if (reply.getInt(HELLO_MAGIC) != MAGIC) {
            throw new FrameException(Status.BAD_REQUEST, true, "not a weightstore node (bad handshake magic)");
        }
        return new HelloReply(Status.of(reply.get(HELLO_REPLY_STATUS)), reply.get(HELLO_REPLY_MAC) == 1);
    }

    // ---- requests

    /** The whole request frame, header and body, ready to write; {@code reuse} is used when large enough. */
    public static ByteBuffer encode(Request request, ByteBuffer reuse) {
        List<BlockCheck> checks = switch (request) {
            case Request.Read r -> r.checks();
            case Request.ReadRanges r -> r.checks();
            case Request.ReadStrided r -> r.checks();
            case Request.Write w -> List.of();
        };
        if (checks.size() > MAX_CHECKS || request instanceof Request.ReadRanges r && r.ranges().size() > MAX_RANGES) {
            throw new IllegalArgumentException(request.op() + " with more than " + MAX_RANGES + " ranges or " + MAX_CHECKS
                    + " checks would be refused by the node");
        }
        int bodyLength = switch (request) {
            case Request.Read r -> READ_BYTES + checksBytes(r.checks());
            case Request.ReadRanges r -> COUNT_BYTES + r.ranges().size() * RANGE_BYTES + checksBytes(r.checks());
            case Request.ReadStrided r -> STRIDE_BYTES + checksBytes(r.checks());
            case Request.Write w -> WRITE_BYTES + w.grant().bytes().length;
        };
        ByteBuffer out = reuse != null && reuse.capacity() >= REQUEST_HEADER_BYTES + bodyLength ? reuse.clear()
                : ByteBuffer.allocate(REQUEST_HEADER_BYTES + bodyLength);
        out.put(request.op().code()).put((byte) 0).putShort((short) 0).putInt(bodyLength);
        switch (request) {
            case Request.Read r -> {
                putRange(out, r.range());
                putChecks(out, r.checks());
            }
            case Request.ReadRanges r -> {
                out.putInt(r.ranges().size());
                r.ranges().forEach(range -> putRange(out, range));
                putChecks(out, r.checks());
            }
            case Request.ReadStrided r -> {
                Stride s = r.stride();
                out.putLong(s.offset()).putLong(s.blockLength()).putLong(s.stride()).putInt(s.count());
                putChecks(out, r.checks());
            }
            case Request.Write w -> {
                putRange(out, w.range());
                byte[] grant = w.grant().bytes();
                requireTicketSize(grant);
                out.putShort((short) grant.length).put(grant);
            }
        }
        return out.flip();
    }

    public static RequestHeader decodeRequestHeader(ByteBuffer header) throws FrameException {
        byte code = header.get(REQUEST_OP);
        int bodyLength = header.getInt(REQUEST_BODY_LENGTH);
        if (header.get(REQUEST_RESERVED_BYTE) != 0 || header.getShort(REQUEST_RESERVED_SHORT) != 0 || bodyLength < 0
                || bodyLength > MAX_BODY) {
            throw new FrameException(Status.BAD_REQUEST, true, "bad request header: op=" + code + " bodyLength=" + bodyLength);
        }
        Op op = Op.of(code).orElseThrow(() -> new FrameException(Status.BAD_REQUEST, true, "unknown op " + code));
        return new RequestHeader(op, bodyLength);
    }

    /** The request whose body is {@code body} (exactly {@code header.bodyLength()} bytes from its position). */
    public static Request decodeRequest(RequestHeader header, ByteBuffer body) throws FrameException {
        Request request = switch (header.op()) {
            case READ -> {
                need(body, READ_BYTES);
                Range range = range(body.getLong(), body.getLong(), false);
                yield new Request.Read(range, checks(body));
            }
            case READ_RANGES -> {
                need(body, COUNT_BYTES);
                int count = body.getInt();
                if (count < 0 || count > MAX_RANGES) {
                    throw new FrameException(Status.BAD_REQUEST, true, "range count " + count + " outside 0.." + MAX_RANGES);
                }
                need(body, (long) count * RANGE_BYTES);
                List<Range> ranges = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    ranges.add(range(body.getLong(), body.getLong(), false));
                }
                yield new Request.ReadRanges(ranges, checks(body));
            }
            case READ_STRIDED -> {
                need(body, STRIDE_BYTES);
                long offset = body.getLong();
                long blockLength = body.getLong();
                long stride = body.getLong();
                int count = body.getInt();
                Stride rows;
                try {
                    rows = new Stride(offset, blockLength, stride, count);
                } catch (IllegalArgumentException e) {
                    throw new FrameException(Status.OUT_OF_RANGE, false, "strided read: " + e.getMessage());
                }
                yield new Request.ReadStrided(rows, checks(body));
            }
            case WRITE -> {
                need(body, WRITE_BYTES);
                // The payload that follows cannot be skipped safely, so a bad write ends the connection.
                Range range = range(body.getLong(), body.getLong(), true);
                int grantLength = Short.toUnsignedInt(body.getShort());
                if (grantLength > MAX_TICKET) {
                    throw new FrameException(Status.BAD_REQUEST, true, "write grant of " + grantLength + " bytes, limit " + MAX_TICKET);
                }
                need(body, grantLength);
                byte[] grant = new byte[grantLength];
                body.get(grant);
                yield new Request.Write(range, Ticket.of(grant));
            }
        };
        if (body.hasRemaining()) {
            throw new FrameException(Status.BAD_REQUEST, true, header.op() + " body has " + body.remaining() + " bytes too many");
        }
        return request;
    }

    private static int checksBytes(List<BlockCheck> checks) {
        return COUNT_BYTES + checks.size() * CHECK_BYTES;
    }

    private static void putRange(ByteBuffer out, Range range) {
        out.putLong(range.offset()).putLong(range.length());
    }

    private static void putChecks(ByteBuffer out, List<BlockCheck> checks) {
        out.putInt(checks.size());
        for (BlockCheck check : checks) {
            out.putLong(check.offset()).putInt(check.length()).putInt(check.crc32c());
        }
    }

    private static Range range(long offset, long length, boolean closeOnError) throws FrameException {
        if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
            throw new FrameException(Status.OUT_OF_RANGE, closeOnError, "range offset=" + offset + " length=" + length
                    + " is impossible");
        }
        return new Range(offset, length);
    }

    private static List<BlockCheck> checks(ByteBuffer body) throws FrameException {
        need(body, COUNT_BYTES);
        int count = body.getInt();
        if (count < 0 || count > MAX_CHECKS) {
            throw new FrameException(Status.BAD_REQUEST, true, "check count " + count + " outside 0.." + MAX_CHECKS);
        }
        if (body.remaining() != (long) count * CHECK_BYTES) {
            throw new FrameException(Status.BAD_REQUEST, true, "body length does not match " + count + " checks: "
                    + body.remaining() + " bytes left, expected " + (long) count * CHECK_BYTES);
        }
        List<BlockCheck> checks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long offset = body.getLong();
            int length = body.getInt();
            int crc = body.getInt();
            if (offset < 0 || length < 0 || length > MAX_CHECK_BLOCK) {
                throw new FrameException(Status.OUT_OF_RANGE, false, "check block offset=" + offset + " length=" + length
                        + " outside 0.." + MAX_CHECK_BLOCK);
            }
            checks.add(new BlockCheck(offset, length, crc));
        }
        return checks;
    }

    private static void need(ByteBuffer body, long bytes) throws FrameException {
        if (body.remaining() < bytes) {
            throw new FrameException(Status.BAD_REQUEST, true, "request body too short: " + body.remaining() + " bytes left, need "
                    + bytes);
        }
    }

    // ---- responses

    /** The response header and message, ready to write; {@code reuse} must hold RESPONSE_HEADER_BYTES + MAX_MESSAGE. */
    public static ByteBuffer encode(Response response, ByteBuffer reuse) {
        byte[] text = response.message().getBytes(StandardCharsets.UTF_8);
        int textLength = Math.min(text.length, MAX_MESSAGE);
        return reuse.clear().put(response.status().code()).put((byte) 0).putShort((short) textLength)
                .putLong(response.payloadLength()).put(text, 0, textLength).flip();
    }

    public static ResponseHeader decodeResponseHeader(ByteBuffer header) throws FrameException {
        Status status = Status.of(header.get(RESPONSE_STATUS));
        int messageLength = Short.toUnsignedInt(header.getShort(RESPONSE_MESSAGE_LENGTH));
        long payload = header.getLong(RESPONSE_PAYLOAD_LENGTH);
        if (messageLength > MAX_MESSAGE || payload < 0) {
            throw new FrameException(Status.BAD_REQUEST, true, "bad response header: messageLength=" + messageLength
                    + " payloadLength=" + payload);
        }
        return new ResponseHeader(status, messageLength, payload);
    }
}

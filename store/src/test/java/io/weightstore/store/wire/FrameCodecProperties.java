package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Both ends of the data plane speak through {@link FrameCodec}: whatever a client encodes, a node
 * decodes to the same request; and whatever bytes arrive, decoding either yields a request or a
 * {@link FrameException} that says whether the connection survives, never another exception.
 */
class FrameCodecProperties {
    @Provide
    Arbitrary<Request> requests() {
        Arbitrary<Long> offsets = Arbitraries.longs().between(0, 1L << 50);
        Arbitrary<Range> ranges = Combinators.combine(offsets, Arbitraries.longs().between(0, 1L << 40)).as(Range::new);
        Arbitrary<BlockCheck> checks = Combinators.combine(offsets, Arbitraries.integers().between(0, FrameCodec.MAX_CHECK_BLOCK),
                Arbitraries.integers()).as(BlockCheck::new);
        Arbitrary<List<BlockCheck>> checkLists = checks.list().ofMaxSize(40);
        Arbitrary<Stride> strides = Combinators.combine(Arbitraries.longs().between(0, 1L << 30),
                Arbitraries.longs().between(0, 1 << 20), Arbitraries.longs().between(0, 1 << 20),
                Arbitraries.integers().between(0, 10_000)).as((offset, block, extra, count) -> new Stride(offset, block, block + extra, count));
        return Arbitraries.oneOf(
                Combinators.combine(ranges, checkLists).as(Request.Read::new),
                Combinators.combine(ranges.list().ofMaxSize(60), checkLists).as(Request.ReadRanges::new),
                Combinators.combine(strides, checkLists).as(Request.ReadStrided::new),
                Combinators.combine(ranges, tickets()).as(Request.Write::new));
    }

    private static Arbitrary<Ticket> tickets() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(FrameCodec.MAX_TICKET).map(Ticket::of);
    }

    private static Request decode(ByteBuffer frame) throws FrameException {
        ByteBuffer header = frame.slice(0, FrameCodec.REQUEST_HEADER_BYTES);
        FrameCodec.RequestHeader decoded = FrameCodec.decodeRequestHeader(header);
        return FrameCodec.decodeRequest(decoded, frame.slice(FrameCodec.REQUEST_HEADER_BYTES, decoded.bodyLength()));
    }

    @Property(tries = 500)
    void everyRequestDecodesToItself(@ForAll("requests") Request request) throws FrameException {
        ByteBuffer frame = FrameCodec.encode(request, null);
        assertThat(decode(frame)).isEqualTo(request);
    }

    @Property(tries = 200)
    void responsesRoundTripWithTheirMessageCutAtTheLimit(@ForAll Status status, @ForAll @Size(max = 5000) String message,
            @ForAll @IntRange(min = 0) int payload) throws FrameException {
        ByteBuffer out = FrameCodec.encode(new Response(status, message, payload),
                ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES + FrameCodec.MAX_MESSAGE));
        FrameCodec.ResponseHeader header = FrameCodec.decodeResponseHeader(out.slice(0, FrameCodec.RESPONSE_HEADER_BYTES));
        assertThat(header.status()).isEqualTo(status);
        assertThat(header.payloadLength()).isEqualTo(payload);
        assertThat(header.messageLength()).isLessThanOrEqualTo(FrameCodec.MAX_MESSAGE)
                .isEqualTo(out.remaining() - FrameCodec.RESPONSE_HEADER_BYTES);
    }

    @Property(tries = 2000)
    void arbitraryBytesDecodeOrFailAsAFrameError(@ForAll @Size(min = 8, max = 600) byte[] bytes) {
        ByteBuffer frame = ByteBuffer.wrap(bytes);
        try {
            FrameCodec.RequestHeader header = FrameCodec.decodeRequestHeader(frame.slice(0, FrameCodec.REQUEST_HEADER_BYTES));
            int available = Math.min(header.bodyLength(), bytes.length - FrameCodec.REQUEST_HEADER_BYTES);
            Request request = FrameCodec.decodeRequest(header, frame.slice(FrameCodec.REQUEST_HEADER_BYTES, available));
            assertThat(FrameCodec.encode(request, null).remaining()).isEqualTo(FrameCodec.REQUEST_HEADER_BYTES + available);
        } catch (FrameException e) {
            assertThat(e.status()).isIn(Status.BAD_REQUEST, Status.OUT_OF_RANGE);
        }
    }

    @Property(tries = 1000)
    void aValidFrameWithOneByteChangedDecodesOrFailsAsAFrameError(@ForAll("requests") Request request,
            @ForAll @IntRange(min = 0, max = 10_000) int position, @ForAll byte value) {
        ByteBuffer frame = FrameCodec.encode(request, null);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        bytes[position % bytes.length] = value;
        try {
            decode(ByteBuffer.wrap(bytes));
        } catch (FrameException e) {
            assertThat(e.getMessage()).isNotBlank();
        } catch (IndexOutOfBoundsException e) {
            // A changed body length points past the bytes we hold; a node would wait for them, not index past them.
            assertThat(position % bytes.length).isBetween(4, 7);
        }
    }

    @Property(tries = 300)
    void truncatedBodyIsABadRequestThatClosesTheConnection(@ForAll("requests") Request request,
            @ForAll @IntRange(min = 1, max = 64) int cut) {
        ByteBuffer frame = FrameCodec.encode(request, null);
        int bodyLength = frame.remaining() - FrameCodec.REQUEST_HEADER_BYTES;
        int kept = Math.max(0, bodyLength - cut);
        assertThatThrownBy(() -> FrameCodec.decodeRequest(new FrameCodec.RequestHeader(request.op(), kept),
                frame.slice(FrameCodec.REQUEST_HEADER_BYTES, kept)))
                .isInstanceOfSatisfying(FrameException.class, e -> {
                    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
                    assertThat(e.closeConnection()).isTrue();
                });
    }

    @Example
    void helloCarriesThePoolAndTheTicketAndRefusesAnotherVersion() throws FrameException {
        UUID pool = UUID.randomUUID();
        Ticket ticket = Ticket.of(new byte[] {1, 2, 3, 4, 5, 6});
        ByteBuffer hello = FrameCodec.encodeHello(pool, ticket);
        FrameCodec.HelloHeader header = FrameCodec.decodeHelloHeader(hello.slice(0, FrameCodec.HELLO_BYTES));
        assertThat(header).isEqualTo(new FrameCodec.HelloHeader(FrameCodec.VERSION, 16 + 6));
        assertThat(header.restLength()).isEqualTo(hello.remaining() - FrameCodec.HELLO_BYTES);
        assertThat(FrameCodec.decodeHelloRest(header, hello.slice(FrameCodec.HELLO_BYTES, header.restLength())))
                .isEqualTo(new FrameCodec.Hello(Optional.of(pool), ticket));
        ByteBuffer ticketless = FrameCodec.encodeHello(pool, Ticket.none());
        assertThat(FrameCodec.decodeHelloRest(FrameCodec.decodeHelloHeader(ticketless.slice(0, FrameCodec.HELLO_BYTES)),
                ticketless.position(FrameCodec.HELLO_BYTES).slice()).session().isNone()).isTrue();
        for (short version : new short[] {1, 99}) {
            ByteBuffer other = ByteBuffer.allocate(FrameCodec.HELLO_BYTES).putInt(FrameCodec.MAGIC).putShort(version)
                    .putShort((short) 0).flip();
            assertThatThrownBy(() -> FrameCodec.decodeHelloHeader(other)).isInstanceOfSatisfying(FrameException.class,
                    e -> assertThat(e.status()).isEqualTo(Status.VERSION));
        }
        assertThat(FrameCodec.decodeHelloReply(FrameCodec.encodeHelloReply(Status.AUTH))).isEqualTo(new HelloReply(Status.AUTH, false));
        assertThat(FrameCodec.decodeHelloReply(FrameCodec.encodeHelloReply(new HelloReply(Status.OK, true))))
                .isEqualTo(new HelloReply(Status.OK, true));
    }

    @Example
    void aVersion2HelloNamesNoPool() throws FrameException {
        ByteBuffer hello = ByteBuffer.allocate(FrameCodec.HELLO_BYTES + 3).putInt(FrameCodec.MAGIC).putShort((short) 2)
                .putShort((short) 3).put(new byte[] {7, 8, 9}).flip();
        FrameCodec.HelloHeader header = FrameCodec.decodeHelloHeader(hello.slice(0, FrameCodec.HELLO_BYTES));
        assertThat(header).isEqualTo(new FrameCodec.HelloHeader((short) 2, 3));
        assertThat(FrameCodec.decodeHelloRest(header, hello.slice(FrameCodec.HELLO_BYTES, 3)))
                .isEqualTo(new FrameCodec.Hello(Optional.empty(), Ticket.of(new byte[] {7, 8, 9})));
    }

    @Example
    void writeWithAnImpossibleRangeClosesTheConnection() {
        ByteBuffer body = ByteBuffer.allocate(18).putLong(-1).putLong(10).putShort((short) 0).flip();
        assertThatThrownBy(() -> FrameCodec.decodeRequest(new FrameCodec.RequestHeader(Op.WRITE, 18), body))
                .isInstanceOfSatisfying(FrameException.class, e -> {
                    assertThat(e.status()).isEqualTo(Status.OUT_OF_RANGE);
                    assertThat(e.closeConnection()).isTrue();
                });
    }

    @Example
    void requestANodeWouldRefuseIsRefusedBeforeItIsSent() {
        List<Range> ranges = new ArrayList<>();
        for (int i = 0; i <= FrameCodec.MAX_RANGES; i++) {
            ranges.add(new Range(i, 1));
        }
        assertThatThrownBy(() -> FrameCodec.encode(new Request.ReadRanges(ranges, List.of()), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("would be refused by the node");
        assertThat(FrameCodec.encode(new Request.ReadRanges(ranges.subList(0, FrameCodec.MAX_RANGES), List.of()), null)
                .remaining()).isLessThanOrEqualTo(FrameCodec.REQUEST_HEADER_BYTES + FrameCodec.MAX_BODY);
    }
}

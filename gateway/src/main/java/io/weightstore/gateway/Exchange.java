package io.weightstore.gateway;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.weightstore.gateway.s3.HttpDates;
import io.weightstore.gateway.transfer.BodyWriter;
import io.weightstore.gateway.transfer.TransferSlots;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One request and its response. A handler answers once: with a whole response ({@link #send}), or
 * with a status and headers and then a body it streams ({@link #startBody}, {@link #endBody}). The
 * connection starts its next request only once this response is written.
 */
final class Exchange {
    /** nginx's status for a request whose client closed the connection before it was answered. */
    static final int CLIENT_CLOSED_REQUEST = 499;

    private final Channel channel;
    private final HttpRequest request;
    private final String rawPath;
    private final String rawQuery;
    private final Duration sendTimeout;
    private final RequestId id = RequestId.next();
    private final long arrivedNanos = System.nanoTime();
    private final HttpHeaders headers = new DefaultHttpHeaders();
    private boolean closeAfter;
    private int status;
    private ChannelFuture last;
    private String note;
    /** Guards {@link #waiter} and {@link #clientLeft}, set on the event loop and read on the request's thread. */
    private final Object departure = new Object();
    private Thread waiter;
    private boolean clientLeft;

    /** {@code closeAfter}: the connection ends with this response, as the client asked or because its request body is not read. */
    Exchange(Channel channel, HttpRequest request, Duration sendTimeout, boolean closeAfter) {
        this.channel = channel;
        this.request = request;
        String target = request.uri();
        int query = target.indexOf('?');
        this.rawPath = pathOf(query < 0 ? target : target.substring(0, query));
        this.rawQuery = query < 0 ? "" : target.substring(query + 1);
        this.sendTimeout = sendTimeout;
        this.closeAfter = closeAfter;
    }

    /** The path of a request target without its query; of an absolute-form target ({@code http://host/path}) too. */
    private static String pathOf(String target) {
        int scheme = target.indexOf("://");
        if (scheme > 0 && target.indexOf('/') > scheme) {
            int slash = target.indexOf('/', scheme + 3);
            return slash < 0 ? "/" : target.substring(slash);
        }
        return target;
    }

    String method() {
        return request.method().name();
    }

    /** The request target's path, still encoded. */
    String rawPath() {
        return rawPath;
    }

    /** The query as sent, without its {@code ?}; empty when there is none. */
    String rawQuery() {
        return rawQuery;
    }

    HttpHeaders requestHeaders() {
        return request.headers();
    }

    /** Why the request could not be read as HTTP/1.1, when it could not. */
    Optional<Throwable> malformed() {
        return request.decoderResult().isFailure() ? Optional.of(request.decoderResult().cause()) : Optional.empty();
    }

    RequestId id() {
        return id;
    }

    long arrivedNanos() {
        return arrivedNanos;
    }

    /** Sets a response header; the last value set wins. */
    void header(String name, String value) {
        headers.set(name, value);
    }

    /**
     * A response without a body; to a HEAD, its Content-Length still says what a GET would send. A
     * 304 gets none (it would have to be the length of the representation it does not send).
     */
    void send(int status) {
        if (status != 304 && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            headers.set(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        last = channel.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, start(status), Unpooled.EMPTY_BUFFER, headers,
                EmptyHttpHeaders.INSTANCE));
    }

    void send(int status, String contentType, byte[] body) {
        headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
        headers.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        last = channel.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, start(status), Unpooled.wrappedBuffer(body),
                headers, EmptyHttpHeaders.INSTANCE));
    }

    /**
     * Writes the status and headers, which must give the Content-Length, and returns the writer of the
     * body; the headers leave with the body's first write.
     */
    BodyWriter startBody(int status) {
        if (!headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            throw new IllegalStateException("a streamed body needs its Content-Length set first");
        }
        last = channel.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, start(status), headers));
        return new BodyWriter(channel, sendTimeout);
    }

    /** Ends a body that {@link #startBody} began, once all of it was written. */
    void endBody() {
        last = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    /** Whether the status line is on its way: from then on a failure can only end the connection. */
    boolean started() {
        return status != 0;
    }

    int status() {
        return status;
    }

    /** Ends the connection after this response; for a response cut short, the client's only sign of it. */
    void closeAfter() {
        closeAfter = true;
    }

    boolean closesAfter() {
        return closeAfter;
    }

    /** What the access log adds to this request's line, such as a client that left mid-transfer. */
    void note(String text) {
        note = text;
    }

    Optional<String> note() {
        return Optional.ofNullable(note);
    }

    /**
     * The client closed the connection, or its side of it, while this request was in progress: it
     * waits for no transfer slot from now on. As nginx takes a client that closes while its request
     * waits on an upstream, a half-close counts as leaving: one that shuts its side after sending a
     * request and still reads the answer gets it if a slot is free at once. Called on the event loop.
     */
    void clientLeft() {
        synchronized (departure) {
            clientLeft = true;
            if (waiter != null) {
                waiter.interrupt();
            }
        }
    }

    /**
     * A transfer slot, once one comes free.
     *
     * @throws ClientLeft when the client left and no slot was free at once, or left while this request
     *     waited, which the slot (if one came free meanwhile) is given back for
     * @throws InterruptedException when the gateway is stopping
     */
    TransferSlots.Slot awaitSlot(TransferSlots slots) throws InterruptedException {
        // Tried before this thread can be interrupted for the client: a client that shut its side gets a free slot.
        Optional<TransferSlots.Slot> free = slots.tryAcquire();
        if (free.isPresent()) {
            return free.get();
        }
        synchronized (departure) {
            if (clientLeft) {
                throw new ClientLeft();
            }
            waiter = Thread.currentThread();
        }
        TransferSlots.Slot slot = null;
        InterruptedException interrupted = null;
        boolean left;
        try {
            slot = slots.acquire();
        } catch (InterruptedException e) {
            interrupted = e;
        } finally {
            synchronized (departure) {
                waiter = null;
                left = clientLeft;
            }
            if (left) {
                // Meant for the wait (which may have ended in a slot, or in SlowDown), not for what this thread does next.
                Thread.interrupted();
            }
        }
        if (left) {
            if (slot != null) {
                slot.close();
            }
            throw new ClientLeft();
        }
        if (interrupted != null) {
            throw interrupted;
        }
        return slot;
    }

    /**
     * Nothing goes out: the client left before an answer could. Logged and counted with nginx's 499
     * (client closed request), a status no response carries, rather than 0, which would say nothing.
     */
    void clientClosedRequest(String why) {
        status = CLIENT_CLOSED_REQUEST;
        note = why;
        closeAfter = true;
    }

    /** The client closed the connection while its request waited: there is no one to answer. */
    static final class ClientLeft extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClientLeft() {
            super("the client closed the connection while its request waited for a transfer slot", null, false, false);
        }
    }

    /** The response's last write, or empty when nothing was answered. */
    Optional<ChannelFuture> lastWrite() {
        return Optional.ofNullable(last);
    }

    private HttpResponseStatus start(int code) {
        if (started()) {
            throw new IllegalStateException("request " + id.value() + " was answered already, with " + status);
        }
        status = code;
        headers.set(AccessLog.REQUEST_ID_HEADER, id.value());
        headers.set(HttpHeaderNames.DATE, HttpDates.http(Instant.now()));
        headers.set(HttpHeaderNames.SERVER, "weightstore");
        if (closeAfter) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return HttpResponseStatus.valueOf(code);
    }
}

package io.weightstore.gateway;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's requests, answered one at a time in arrival order. Each runs on a virtual thread
 * of its own, since the store's calls block; the connection reads one pass ahead of a request in
 * progress, so that a client closing the connection is seen while its request waits (for a transfer
 * slot, which it then does not take), and reads on once a response is written: a pipelining client
 * is answered in order and a slow one is read no further ahead than that. Request bodies are not
 * read (every operation is a GET or a HEAD): a request that has one is answered, then the connection
 * is closed. Every method but {@link #run} runs on the connection's event loop.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);
    /**
     * Requests a connection may have waiting behind the one in progress. Reads stop while one is in
     * progress, but the read pass that brought it is decoded whole, before any is authenticated: one
     * packet of bare {@code GET /} lines would queue thousands. HTTP clients pipeline a few, if any.
     */
    static final int MAX_PIPELINED = 32;
    /**
     * Header fields all the waiting requests may hold together. Decoded, a field costs its map entry and two strings,
     * some 150 bytes of heap for as few as 4 bytes on the wire ({@code a:}), so the count of requests alone let each
     * connection hold megabytes before anything was authenticated. S3 clients send a dozen or two a request.
     */
    static final int MAX_PIPELINED_FIELDS = 512;

    private final S3Routes routes;
    private final AccessLog accessLog;
    private final Executor requests;
    private final Duration sendTimeout;
    private final RequestHeadDeadline headDeadline;
    private final ArrayDeque<HttpRequest> pipelined = new ArrayDeque<>();
    /** The header fields of the requests in {@link #pipelined}. */
    private int pipelinedFields;
    private boolean busy;
    /** The request in progress while {@link #busy}. */
    private Exchange current;
    /** The client shut its side of the connection: nothing more will come. */
    private boolean inputClosed;
    /**
     * The client pipelined more than {@link #MAX_PIPELINED} requests, or {@link #MAX_PIPELINED_FIELDS} header fields: the
     * connection is closing, and takes no more.
     */
    private boolean overflowed;

    /** {@code headDeadline}: the same connection's, before its HTTP decoder, told when requests start and finish. */
    ConnectionHandler(S3Routes routes, AccessLog accessLog, Executor requests, Duration sendTimeout, RequestHeadDeadline headDeadline) {
        this.routes = routes;
        this.accessLog = accessLog;
        this.requests = requests;
        this.sendTimeout = sendTimeout;
        this.headDeadline = headDeadline;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            // The rest of the read pass is decoded after the close: what it brings is dropped, not queued again.
            if (message instanceof HttpRequest request && !overflowed) {
                headDeadline.requestStarted();
                int fields = request.headers().size();
                if (busy && (pipelined.size() >= MAX_PIPELINED || pipelinedFields + fields > MAX_PIPELINED_FIELDS)) {
                    log.debug("connection from {} pipelined more than {} requests or {} header fields; closing it",
                            ctx.channel().remoteAddress(), MAX_PIPELINED, MAX_PIPELINED_FIELDS);
                    overflowed = true;
                    pipelined.clear();
                    pipelinedFields = 0;
                    ctx.close();
                } else if (busy) {
                    pipelined.add(request);
                    pipelinedFields += fields;
                } else {
                    start(ctx, request);
                }
            }
        } finally {
            // Bodies are not read: their content goes, and a request that had one closes the connection.
            ReferenceCountUtil.release(message);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!busy) {
            ctx.read();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        // Idle with a request in progress is a handler waiting on the store or for a slot, each with deadlines of its own.
        if (event instanceof IdleStateEvent && !busy) {
            ctx.close();
        } else if (event instanceof ChannelInputShutdownEvent) {
            inputClosed = true;
            if (busy) {
                current.clientLeft();
            } else {
                ctx.close();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (busy) {
            current.clientLeft();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("connection from {} failed; closing it", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }

    private void start(ChannelHandlerContext ctx, HttpRequest request) {
        busy = true;
        boolean closeAfter = request.decoderResult().isFailure() || !HttpUtil.isKeepAlive(request) || mayHaveBody(request);
        Exchange exchange = new Exchange(ctx.channel(), request, sendTimeout, closeAfter);
        current = exchange;
        if (inputClosed) {
            exchange.clientLeft();
        }
        try {
            requests.execute(() -> run(ctx, exchange));
        } catch (RejectedExecutionException stopping) {
            // The gateway is closing: its connections are being closed too.
            ctx.close();
            return;
        }
        if (pipelined.isEmpty() && !inputClosed) {
            // One pass ahead, to see the client close; requests that come in it wait in the queue, which then reads no more.
            ctx.read();
        }
    }

    /**
     * Whether a body may follow the head, which this connection does not read past. A Content-Length that is
     * no number (the decoder lets a request carrying one through, marked failed, when it comes pipelined
     * behind another) counts as a body: parsing it here threw on the event loop and left the connection
     * busy for good.
     */
    private static boolean mayHaveBody(HttpRequest request) {
        if (HttpUtil.isTransferEncodingChunked(request)) {
            return true;
        }
        try {
            return HttpUtil.getContentLength(request, 0L) > 0;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /** Answers {@code exchange} on its own virtual thread, then hands the connection back to the event loop. */
    private void run(ChannelHandlerContext ctx, Exchange exchange) {
        try {
            routes.handle(exchange);
        } catch (RuntimeException | Error e) {
            log.error("{} {} failed", exchange.method(), exchange.rawPath(), e);
            exchange.closeAfter();
        }
        ChannelFuture last = exchange.lastWrite().orElse(null);
        if (last == null) {
            ctx.executor().execute(() -> finished(ctx, exchange, false));
            return;
        }
        // A streamed body waited out its stalls already; a whole response (an error, a listing) is cut here, or a
        // client that pipelines requests and never reads their answers would hold the connection for ever.
        ScheduledFuture<?> cutOff = ctx.executor().schedule(() -> {
            if (!last.isDone()) {
                exchange.note("the client took no byte of the response for " + sendTimeout.toMillis() + " ms; connection closed");
                ctx.close();
            }
        }, sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
        last.addListener(written -> {
            cutOff.cancel(false);
            finished(ctx, exchange, written.isSuccess());
        });
    }

    private void finished(ChannelHandlerContext ctx, Exchange exchange, boolean written) {
        accessLog.answered(exchange);
        if (!written || exchange.closesAfter()) {
            ctx.close();
            return;
        }
        busy = false;
        current = null;
        HttpRequest next = pipelined.poll();
        if (next != null) {
            pipelinedFields -= next.headers().size();
            try {
                start(ctx, next);
            } catch (RuntimeException e) {
                // Thrown in a write's listener, it would only be logged by Netty, and the connection stay busy for good.
                log.error("connection from {}: a pipelined request could not start; closing it", ctx.channel().remoteAddress(), e);
                ctx.close();
            }
        } else if (inputClosed) {
            ctx.close();
        } else {
            headDeadline.requestFinished();
            ctx.read();
        }
    }
}

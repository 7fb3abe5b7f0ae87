package io.weightstore.gateway;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose request line and headers take longer than the deadline to arrive, from
 * the first byte that comes while the connection waits for a request. The idle timeout alone does not
 * bound them: a client that sends a byte now and then is never idle, and could hold a connection for
 * as long as it likes without ever asking for anything. Sits before the HTTP decoder, where the bytes
 * arrive; {@link ConnectionHandler} tells it when a request's head is decoded and when its response
 * is written. Bytes that come while a request is in progress (the next pipelined head, read in the
 * pass the connection reads ahead) start no deadline: one starts with the next bytes after the
 * response. A head begun in that pass whose client then sends nothing more is bounded by the idle
 * timeout instead, which closes a connection with no request in progress and no bytes moving.
 */
final class RequestHeadDeadline extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RequestHeadDeadline.class);

    private final Duration deadline;
    private boolean waiting = true;
    private ScheduledFuture<?> armed;

    RequestHeadDeadline(Duration deadline) {
        this.deadline = deadline;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (waiting && armed == null) {
            armed = ctx.executor().schedule(() -> {
                log.debug("connection from {} sent no whole request head in {}; closing it", ctx.channel().remoteAddress(), deadline);
                ctx.close();
            }, deadline.toMillis(), TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelRead(message);
    }

    /** A request's head arrived whole and its request is in progress: no deadline until its response is written. */
    void requestStarted() {
        waiting = false;
        disarm();
    }

    /** The response is written; the next bytes start the next head's deadline. */
    void requestFinished() {
        waiting = true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    private void disarm() {
        if (armed != null) {
            armed.cancel(false);
            armed = null;
        }
    }
}

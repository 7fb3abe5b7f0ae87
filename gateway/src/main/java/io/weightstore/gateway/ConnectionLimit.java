package io.weightstore.gateway;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Caps the connections open at once, on the listening channel: at the cap it stops accepting, so
 * more clients wait in the kernel's backlog (their connect completes, their request waits) rather than
 * being refused, and each close lets one more in. Every count and every switch happens on the
 * listening channel's event loop, so a close and an accept cannot leave it switched off below the
 * cap. The listening channel accepts one connection a read ({@code S3Gateway}), so the switch takes
 * effect before the next; one accepted past the cap all the same is closed at once. One instance per
 * listening channel: it counts that channel's connections.
 */
final class ConnectionLimit extends ChannelInboundHandlerAdapter {
    private final int max;
    private int open;

    ConnectionLimit(int max) {
        this.max = max;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel server = ctx.channel();
        Channel accepted = (Channel) msg;
        if (open >= max) {
            // Not yet registered with an event loop, where close() would run: as Netty's acceptor closes one it cannot register.
            accepted.unsafe().closeForcibly();
            return;
        }
        open++;
        accepted.closeFuture().addListener(closed -> server.eventLoop().execute(() -> {
            open--;
            server.config().setAutoRead(true);
        }));
        if (open >= max) {
            server.config().setAutoRead(false);
        }
        ctx.fireChannelRead(msg);
    }
}

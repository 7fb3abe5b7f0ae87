package io.weightstore.gateway.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.weightstore.store.client.InPlaceFiles;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A body written to a real socket from off-heap memory and from file ranges, and a client that stops reading. */
class BodyWriterTest {
    @TempDir
    Path tmp;

    private EventLoopGroup loops;
    private Channel server;
    private final CompletableFuture<Channel> accepted = new CompletableFuture<>();

    @BeforeEach
    void listen() throws InterruptedException {
        loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.complete(ctx.channel());
                    }
                })
                // A small send buffer, so the socket takes bytes as the client reads them rather than megabytes at a time.
                .childOption(ChannelOption.SO_SNDBUF, 64 << 10)
                .bind("127.0.0.1", 0).sync().channel();
    }

    @AfterEach
    void stop() {
        server.close().syncUninterruptibly();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(32 << 10);
        socket.connect(new InetSocketAddress("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort()));
        return socket;
    }

    @Test
    void memoryAndFileRangesArriveInTheOrderWritten() throws Exception {
        byte[] memory = new byte[3 << 20];
        byte[] file = new byte[2 << 20];
        Random random = new Random(3);
        random.nextBytes(memory);
        random.nextBytes(file);
        Path path = tmp.resolve("pool");
        Files.write(path, file);
        try (Socket socket = connect(); Arena arena = Arena.ofShared();
                FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            BodyWriter body = new BodyWriter(accepted.get(10, TimeUnit.SECONDS), Duration.ofSeconds(10));
            MemorySegment offHeap = arena.allocate(memory.length, 4096);
            MemorySegment.copy(memory, 0, offHeap, ValueLayout.JAVA_BYTE, 0, memory.length);
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readAll(socket, memory.length + 1_000 + 5_000));
            body.write(offHeap);
            body.write(List.of(new InPlaceFiles.FileRange(channel, 7_000, 5_000), new InPlaceFiles.FileRange(channel, 0, 1_000)));
            body.drain();
            assertThat(body.written()).isEqualTo(memory.length + 6_000L);
            byte[] bytes = received.get(10, TimeUnit.SECONDS);
            assertThat(Arrays.copyOfRange(bytes, 0, memory.length)).isEqualTo(memory);
            assertThat(Arrays.copyOfRange(bytes, memory.length, memory.length + 5_000))
                    .isEqualTo(Arrays.copyOfRange(file, 7_000, 12_000));
            assertThat(Arrays.copyOfRange(bytes, memory.length + 5_000, bytes.length))
                    .isEqualTo(Arrays.copyOfRange(file, 0, 1_000));
        }
    }

    @Test
    void aClientThatStopsReadingIsCutOffAtTheDeadline() throws Exception {
        try (Socket socket = connect(); Arena arena = Arena.ofShared()) {
            Channel channel = accepted.get(10, TimeUnit.SECONDS);
            BodyWriter body = new BodyWriter(channel, Duration.ofMillis(300));
            // Far more than the two sockets' buffers hold, and nobody reads it.
            BodyWriter.Sent sent = body.write(arena.allocate(64 << 20, 4096));
            assertThatThrownBy(sent::await).isInstanceOf(IOException.class).hasMessageContaining("took no byte")
                    .hasMessageContaining("for 300 ms");
            assertThat(channel.isOpen()).isFalse();
        }
    }

    @Test
    void aClientReadingSlowlyButSteadilyGetsAWholeBodyThatTakesManyDeadlines() throws Exception {
        byte[] memory = new byte[8 << 20];
        new Random(5).nextBytes(memory);
        try (Socket socket = connect(); Arena arena = Arena.ofShared()) {
            BodyWriter body = new BodyWriter(accepted.get(10, TimeUnit.SECONDS), Duration.ofMillis(300));
            MemorySegment offHeap = arena.allocate(memory.length, 4096);
            MemorySegment.copy(memory, 0, offHeap, ValueLayout.JAVA_BYTE, 0, memory.length);
            long started = System.nanoTime();
            // 256 KiB every 100 ms: about 3 s for the body, ten times the deadline, never 300 ms without a byte taken.
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readSlowly(socket, memory.length, 256 << 10, 100));
            body.write(offHeap.asSlice(0, memory.length / 2));
            BodyWriter.Sent second = body.write(offHeap.asSlice(memory.length / 2));
            second.await();
            assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(memory);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the body outlasted the deadline several times")
                    .isGreaterThan(Duration.ofMillis(900));
        }
    }

    private static byte[] readSlowly(Socket socket, int length, int step, long pauseMillis) {
        try {
            InputStream in = socket.getInputStream();
            byte[] bytes = new byte[length];
            for (int at = 0; at < length; at += step) {
                Thread.sleep(pauseMillis);
                in.readNBytes(bytes, at, Math.min(step, length - at));
            }
            return bytes;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static byte[] readAll(Socket socket, int length) {
        try {
            InputStream in = socket.getInputStream();
            return in.readNBytes(length);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.weightstore.store;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A rogue box on the path between clients and one storage node: a real TCP proxy that relays the
 * data plane frame by frame, unchanged, except that it rewrites the payload of the replies to the
 * requests it picks, leaving each reply's header saying OK. The node checked what it sent; only a
 * client that checks what it receives can tell.
 */
public final class ReplyTamperer implements AutoCloseable {
    /** Rewrites the {@code n} bytes in {@code buffer}, which lie from {@code at} on in the reply's payload. */
    @FunctionalInterface
    public interface Rewrite {
        void apply(byte[] buffer, int n, long at);
    }

    private final InetSocketAddress node;
    private final Predicate<Request> picked;
    private final Rewrite rewrite;
    private final ServerSocket listener;
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicLong tampered = new AtomicLong();
    private volatile boolean closed;

    private ReplyTamperer(InetSocketAddress node, Predicate<Request> picked, Rewrite rewrite) throws IOException {
        this.node = node;
        this.picked = picked;
        this.rewrite = rewrite;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("tamperer-accept").start(this::accept);
    }

    /** A proxy on a loopback ephemeral port in front of the node at {@code node}, zeroing every READ_STRIDED reply (column shards). */
    public static ReplyTamperer zeroingStridedReplies(InetSocketAddress node) throws IOException {
        return new ReplyTamperer(node, request -> request instanceof Request.ReadStrided, (buffer, n, at) -> Arrays.fill(buffer, 0, n,
                (byte) 0));
    }

    /**
     * A proxy in front of the node at {@code node} that xors {@code mask} into byte {@code index} of the reply to every read of
     * one range of exactly {@code length} bytes.
     */
    public static ReplyTamperer xoringAByteOfReadsOf(InetSocketAddress node, long length, long index, byte mask) throws IOException {
        return new ReplyTamperer(node, request -> request instanceof Request.Read read && read.range().length() == length,
                (buffer, n, at) -> {
                    if (index >= at && index < at + n) {
                        buffer[(int) (index - at)] ^= mask;
                    }
                });
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Replies whose payload was rewritten so far. */
    public long tamperedReplies() {
        return tampered.get();
    }

    /**
     * Tells the insecure master at {@code master} that {@code node} serves its data plane at this proxy
     * (an insecure master takes anyone's word): clients that locate objects from now on come here.
     */
    public void advertiseAs(NodeInfo node, String master) throws StoreException {
        try (GrpcMasterApi api = GrpcMasterApi.connect(master, Authentication.insecure())) {
            api.registerNode(new NodeInfo(node.nodeId(), new Endpoint("127.0.0.1", port()), node.poolPath(), node.poolUuid(),
                    node.capacity()));
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(node.getAddress(), node.getPort());
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                // Replies come back in request order: the request side tells the reply side which op each answers.
                BlockingQueue<Request> asked = new LinkedBlockingQueue<>();
                Thread.ofPlatform().daemon().start(() -> relayRequests(client, upstream, asked));
                Thread.ofPlatform().daemon().start(() -> relayReplies(upstream, client, asked));
            } catch (IOException e) {
                if (!closed) {
                    throw new IllegalStateException("tamperer stopped accepting", e);
                }
            }
        }
    }

    private static void relayRequests(Socket client, Socket upstream, BlockingQueue<Request> asked) {
        try (client; upstream) {
            DataInputStream in = new DataInputStream(client.getInputStream());
            OutputStream out = upstream.getOutputStream();
            byte[] hello = in.readNBytes(FrameCodec.HELLO_BYTES);
            int rest = FrameCodec.decodeHelloHeader(ByteBuffer.wrap(hello)).restLength();
            out.write(hello);
            out.write(in.readNBytes(rest));
            while (true) {
                byte[] header = new byte[FrameCodec.REQUEST_HEADER_BYTES];
                in.readFully(header);
                FrameCodec.RequestHeader request = FrameCodec.decodeRequestHeader(ByteBuffer.wrap(header));
                byte[] body = in.readNBytes(request.bodyLength());
                out.write(header);
                out.write(body);
                Request decoded = FrameCodec.decodeRequest(request, ByteBuffer.wrap(body));
                if (decoded instanceof Request.Write write) {
                    copy(in, out, write.range().length(), null);
                }
                asked.add(decoded);
            }
        } catch (EOFException | FrameException e) {
            // The client hung up, or sent what the node would refuse anyway: the connection ends here.
        } catch (IOException e) {
            // Either side closed.
        }
    }

    private void relayReplies(Socket upstream, Socket client, BlockingQueue<Request> asked) {
        try (upstream; client) {
            DataInputStream in = new DataInputStream(upstream.getInputStream());
            OutputStream out = client.getOutputStream();
            byte[] hello = in.readNBytes(FrameCodec.HELLO_BYTES);
            out.write(hello);
            while (true) {
                byte[] header = new byte[FrameCodec.RESPONSE_HEADER_BYTES];
                in.readFully(header);
                FrameCodec.ResponseHeader reply = FrameCodec.decodeResponseHeader(ByteBuffer.wrap(header));
                out.write(header);
                out.write(in.readNBytes(reply.messageLength()));
                boolean tamper = picked.test(asked.take()) && reply.payloadLength() > 0;
                copy(in, out, reply.payloadLength(), tamper ? rewrite : null);
                if (tamper) {
                    tampered.incrementAndGet();
                }
            }
        } catch (EOFException | FrameException e) {
            // The node hung up.
        } catch (IOException e) {
            // Either side closed.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Relays {@code length} bytes, through {@code rewrite} unless it is null. */
    private static void copy(InputStream in, OutputStream out, long length, Rewrite rewrite) throws IOException {
        byte[] buffer = new byte[64 << 10];
        for (long done = 0; done < length; ) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, length - done));
            if (n < 0) {
                throw new EOFException();
            }
            if (rewrite != null) {
                rewrite.apply(buffer, n, done);
            }
            out.write(buffer, 0, n);
            done += n;
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        synchronized (sockets) {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}

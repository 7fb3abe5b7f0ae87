package io.weightstore.store.wire;

import io.weightstore.store.api.CongestionControl;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.channels.NetworkChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP socket options the JDK does not offer, set with {@code setsockopt(2)} through the foreign
 * function API. The JDK keeps a channel's descriptor in {@code sun.nio.ch}, which a JVM reaches only
 * when started with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} (the launcher, the test
 * runs and the container image pass it). Without it nothing is set, and that is said once in the log.
 */
public final class TcpSockets {
    private static final Logger log = LoggerFactory.getLogger(TcpSockets.class);
    /** From {@code <netinet/in.h>} and {@code <netinet/tcp.h>} on Linux. */
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    private static final int TCP_CA_NAME_MAX = 16;
    private static final int ENOENT = 2;
    private static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    private static final Path ALLOWED = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
    private static final AtomicBoolean TOLD_OUT_OF_REACH = new AtomicBoolean();

    private TcpSockets() {}

    /**
     * Sets {@code congestionControl} on {@code channel}, which must not have connected or bound yet: a
     * connection set up under another algorithm keeps its pacing after a switch, and a listening socket
     * passes its algorithm to the connections it accepts. Returns false, with the host's default left in
     * place, where the descriptor is out of reach; throws when the kernel refuses the algorithm.
     */
    public static boolean setCongestionControl(NetworkChannel channel, CongestionControl congestionControl) throws IOException {
        if (congestionControl.isHostDefault()) {
            return true;
        }
        Optional<Integer> fd = descriptor(channel);
        if (fd.isEmpty()) {
            return false;
        }
        String algorithm = congestionControl.algorithm();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(algorithm);
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            int result = (int) Libc.SETSOCKOPT.invokeExact(state, (int) fd.get(), IPPROTO_TCP, TCP_CONGESTION, name, algorithm.length());
            if (result != 0) {
                int errno = (int) Libc.ERRNO.get(state, 0L);
                throw new IOException("the kernel refused TCP congestion control '" + algorithm + "': " + (errno == ENOENT
                        ? "it has no such algorithm (available: " + read(AVAILABLE) + ")"
                        : "errno " + errno + " (an unprivileged process may use only: " + read(ALLOWED) + ")"));
            }
            return true;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("setsockopt(2) failed to run", e);
        }
    }

    /**
     * The algorithm {@code channel} sends under, as the kernel reports it; where the descriptor is out of
     * reach, the host's default, which it then has.
     */
    public static String congestionControl(NetworkChannel channel) throws IOException {
        Optional<Integer> fd = descriptor(channel);
        if (fd.isEmpty()) {
            return hostDefault();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(TCP_CA_NAME_MAX);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, TCP_CA_NAME_MAX);
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            int result = (int) Libc.GETSOCKOPT.invokeExact(state, (int) fd.get(), IPPROTO_TCP, TCP_CONGESTION, name, length);
            if (result != 0) {
                throw new IOException("getsockopt(TCP_CONGESTION) failed: errno " + (int) Libc.ERRNO.get(state, 0L));
            }
            return name.getString(0);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("getsockopt(2) failed to run", e);
        }
    }

    /** The host's default algorithm. */
    private static String hostDefault() {
        return read(Path.of("/proc/sys/net/ipv4/tcp_congestion_control"));
    }

    private static Optional<Integer> descriptor(NetworkChannel channel) {
        if (Libc.FD_VAL == null) {
            tellOutOfReach("this platform has no sun.nio.ch.SelChImpl");
            return Optional.empty();
        }
        try {
            return Optional.of((Integer) Libc.FD_VAL.invoke(channel));
        } catch (IllegalAccessException e) {
            tellOutOfReach("this JVM does not export sun.nio.ch: start it with --add-exports java.base/sun.nio.ch=ALL-UNNAMED,"
                    + " as the weightstore launcher does");
            return Optional.empty();
        } catch (InvocationTargetException | IllegalArgumentException e) {
            tellOutOfReach(channel.getClass().getName() + " has no descriptor to set options on (" + e + ")");
            return Optional.empty();
        }
    }

    private static void tellOutOfReach(String why) {
        if (TOLD_OUT_OF_REACH.compareAndSet(false, true)) {
            log.info("data-plane sockets keep the host's TCP congestion control ({}): {}", hostDefault(), why);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "unknown: " + file + " unreadable";
        }
    }

    /** libc's calls and the JDK's descriptor accessor, linked on first use. */
    private static final class Libc {
        static final Linker LINKER = Linker.nativeLinker();
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle SETSOCKOPT = function("setsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        static final MethodHandle GETSOCKOPT = function("getsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        static final Method FD_VAL = fdVal();

        private Libc() {}

        private static MethodHandle function(String name, FunctionDescriptor descriptor) {
            MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
            return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
        }

        private static Method fdVal() {
            try {
                return Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal");
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }
    }
}

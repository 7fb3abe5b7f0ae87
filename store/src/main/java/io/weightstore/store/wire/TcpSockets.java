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
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP socket options the JDK does not offer, set with Linux's {@code setsockopt(2)} through the
 * foreign function API. The JDK keeps a channel's descriptor in {@code sun.nio.ch}, which a JVM
 * reaches only when started with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} (the
 * launcher, the container image's launcher and the test JVMs pass it). Where the descriptor or the
 * calls are out of reach (no export, native access denied, not Linux), nothing is set, and the log
 * says so once.
 */
public final class TcpSockets {
    private static final Logger log = LoggerFactory.getLogger(TcpSockets.class);
    /** From Linux's {@code <netinet/in.h>} and {@code <netinet/tcp.h>}. */
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    private static final int TCP_CA_NAME_MAX = 16;
    private static final int ENOENT = 2;
    private static final Path HOST_DEFAULT = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");
    private static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    private static final Path ALLOWED = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
    private static final AtomicBoolean TOLD_OUT_OF_REACH = new AtomicBoolean();
    private static final AtomicBoolean TOLD_REFUSED = new AtomicBoolean();

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
            MemorySegment state = arena.allocate(Native.CALL_STATE);
            int result = (int) Native.calls().setsockopt().invokeExact(state, (int) fd.get(), IPPROTO_TCP, TCP_CONGESTION, name,
                    algorithm.length());
            if (result != 0) {
                int errno = (int) Native.ERRNO.get(state, 0L);
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
     * As {@link #setCongestionControl}, for a connection that must go ahead whatever the kernel thinks of
     * the algorithm: a refusal leaves the host's default, said once in the log, instead of failing.
     */
    public static void preferCongestionControl(NetworkChannel channel, CongestionControl congestionControl) {
        try {
            setCongestionControl(channel, congestionControl);
        } catch (IOException refused) {
            if (TOLD_REFUSED.compareAndSet(false, true)) {
                log.warn("data-plane connections keep the host's TCP congestion control ({}): {}", hostDefault(),
                        refused.getMessage());
            }
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
            MemorySegment state = arena.allocate(Native.CALL_STATE);
            int result = (int) Native.calls().getsockopt().invokeExact(state, (int) fd.get(), IPPROTO_TCP, TCP_CONGESTION, name,
                    length);
            if (result != 0) {
                throw new IOException("getsockopt(TCP_CONGESTION) failed: errno " + (int) Native.ERRNO.get(state, 0L));
            }
            return name.getString(0);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("getsockopt(2) failed to run", e);
        }
    }

    private static Optional<Integer> descriptor(NetworkChannel channel) {
        if (Native.CALLS.isEmpty()) {
            tellOutOfReach(Native.WHY_NOT);
            return Optional.empty();
        }
        try {
            return Optional.of((Integer) Native.calls().fdVal().invoke(channel));
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

    /** The host's default algorithm ({@code net.ipv4.tcp_congestion_control}), which sockets not set otherwise send under. */
    public static String hostDefault() {
        return read(HOST_DEFAULT);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "unknown: " + file + " unreadable";
        }
    }

    /** libc's two calls and the JDK's descriptor accessor, linked on first use, or why they cannot be. */
    private static final class Native {
        record Calls(MethodHandle setsockopt, MethodHandle getsockopt, Method fdVal) {}

        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final Optional<Calls> CALLS;
        static final String WHY_NOT;

        static {
            Optional<Calls> calls = Optional.empty();
            String whyNot = "";
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
                whyNot = "the option numbers are Linux's, and this is " + System.getProperty("os.name");
            } else {
                try {
                    Linker linker = Linker.nativeLinker();
                    calls = Optional.of(new Calls(
                            function(linker, "setsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT)),
                            function(linker, "getsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS)),
                            Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal")));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // A JVM that denies native access throws IllegalCallerException here; a JDK without SelChImpl, the rest.
                    whyNot = "cannot link setsockopt(2) or find the JDK's descriptor accessor: " + e;
                }
            }
            CALLS = calls;
            WHY_NOT = whyNot;
        }

        private Native() {}

        static Calls calls() {
            return CALLS.orElseThrow();
        }

        private static MethodHandle function(Linker linker, String name, FunctionDescriptor descriptor) {
            MemorySegment symbol = linker.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
            return linker.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
        }
    }
}

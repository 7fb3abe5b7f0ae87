package io.weightstore.store.client.access;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node's host name looked up within a deadline. The JDK's lookup has none of its own: a resolver that does not answer
 * holds the caller for its timeouts times its retries (5 s and 2 by glibc's defaults, per name server), and a connection
 * to a node must not outlive its deadline before it even connects. An address given as a literal is not looked up.
 */
final class HostLookup {
    /** Looks up a name; the JDK's, unless a test slows it down. */
    @FunctionalInterface
    interface Resolver {
        InetAddress resolve(String host) throws UnknownHostException;
    }

    /** Lookups that outlive their deadline finish here, unwaited for, rather than on the caller's thread. */
    private static final ExecutorService LOOKUPS = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("node-host-lookup-", 0).factory());
    static final HostLookup JDK = new HostLookup(InetAddress::getByName);

    private final Resolver resolver;
    /**
     * The lookup of each name in flight, which every caller for that name waits on: a lookup cannot be stopped, so one
     * that does not answer holds a thread until the resolver gives up, and one per name bounds them by the nodes.
     */
    private final ConcurrentHashMap<String, CompletableFuture<InetAddress>> inFlight = new ConcurrentHashMap<>();

    HostLookup(Resolver resolver) {
        this.resolver = resolver;
    }

    /**
     * The address of {@code host}, within {@code timeout}.
     *
     * @throws SocketTimeoutException when the lookup takes longer
     * @throws UnknownHostException when the name has no address
     */
    InetAddress resolve(String host, Duration timeout) throws IOException {
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException notALiteral) {
            // A name: looked up below.
        }
        CompletableFuture<InetAddress> mine = new CompletableFuture<>();
        CompletableFuture<InetAddress> lookup = inFlight.putIfAbsent(host, mine);
        if (lookup == null) {
            lookup = mine;
            // Started once it is in the map, and out of it before it completes: a caller after that looks up afresh.
            LOOKUPS.execute(() -> {
                InetAddress address;
                try {
                    address = resolver.resolve(host);
                } catch (Throwable e) {
                    inFlight.remove(host, mine);
                    mine.completeExceptionally(e);
                    return;
                }
                inFlight.remove(host, mine);
                mine.complete(address);
            });
        }
        try {
            return lookup.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("looking up node host " + host + " took longer than its deadline of " + timeout.toMillis()
                    + " ms (is the resolver in /etc/resolv.conf answering?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while looking up node host " + host);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException failed) {
                throw failed;
            }
            throw new IOException("looking up node host " + host + " failed: " + e.getCause(), e.getCause());
        }
    }
}

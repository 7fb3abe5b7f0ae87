package io.weightstore.store.ha;

import io.etcd.jetcd.ByteSequence;
import io.weightstore.store.api.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers around jetcd: UTF-8 keys, and waiting for a call with a deadline. */
final class Etcd {
    private Etcd() {}

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The first key after every key that starts with {@code prefix}: the end of a prefix range. */
    static ByteSequence prefixEnd(String prefix) {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        end[end.length - 1]++; // prefixes here end in '/', never in 0xFF
        return ByteSequence.from(end);
    }

    /** Waits at most {@code timeout} for an etcd call; a failure or a late answer is UNAVAILABLE naming {@code what}. */
    static <T> T await(CompletableFuture<T> call, Duration timeout, String what) throws StoreException {
        try {
            return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new StoreException(StoreException.Code.UNAVAILABLE, "etcd did not answer " + what + " within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new StoreException(StoreException.Code.UNAVAILABLE, "etcd refused " + what + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Code.UNAVAILABLE, "interrupted while waiting for etcd to answer " + what, e);
        }
    }
}

package io.weightstore.store.api;

/**
 * The identity the master serves in the current call, as the master's gRPC edge authenticated it
 * (its TLS client certificate or bearer token), bound for the length of that one call. The master
 * reads it to record who wrote an object. Nothing a client sends can set it: a remote client's
 * calls all come through the edge, which binds only the identity it authenticated, and an
 * in-process master (the embedded store) or an insecure one serves no identities, so there it is
 * empty.
 */
public final class Caller {
    private static final ScopedValue<String> AUTHENTICATED = ScopedValue.newInstance();

    private Caller() {}

    /** Runs {@code call} on behalf of {@code identity} (as {@code Identity.toString()} names it: "writer importer"). */
    public static <T, X extends Throwable> T as(String identity, ScopedValue.CallableOp<T, X> call) throws X {
        return ScopedValue.where(AUTHENTICATED, identity).call(call);
    }

    /** The authenticated identity of this call, or empty when the master serves none. */
    public static String current() {
        return AUTHENTICATED.orElse("");
    }
}

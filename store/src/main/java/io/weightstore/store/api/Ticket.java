package io.weightstore.store.api;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the master vouches for, sealed for one node: a session ticket (this caller, with this role,
 * may talk to the node until a time) or a write grant (this caller may write these bytes there).
 * Opaque to clients, which pass it on; only the node it was sealed for can check it.
 */
public final class Ticket {
    private static final Ticket NONE = new Ticket(new byte[0]);

    private final byte[] sealed;

    private Ticket(byte[] sealed) {
        this.sealed = sealed;
    }

    public static Ticket of(byte[] sealed) {
        return sealed.length == 0 ? NONE : new Ticket(sealed.clone());
    }

    /** No ticket: what clients of an insecure cluster present. */
    public static Ticket none() {
        return NONE;
    }

    public byte[] bytes() {
        return sealed.clone();
    }

    public boolean isNone() {
        return sealed.length == 0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Ticket that && Arrays.equals(sealed, that.sealed);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sealed);
    }

    /** Never the bytes: a ticket in a log would let a reader of the log use it. */
    @Override
    public String toString() {
        return isNone() ? "Ticket[none]" : "Ticket[" + sealed.length + " bytes, " + HexFormat.of().formatHex(sealed, 0, 4) + "…]";
    }
}

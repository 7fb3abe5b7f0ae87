package io.weightstore.store.security;

import io.weightstore.store.api.Ticket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * What a ticket says, sealed by the master with the node's key and checked by the node. A session
 * ticket admits {@code caller} with {@code role} to {@code node} (its data-plane connections), bound
 * to the caller's certificate when the master knew the caller by one; a
 * write grant lets {@code caller} write exactly {@code length} bytes at {@code offset} of the node's
 * pool, the place a put was given; a read grant admits {@code caller} (another node, making a copy)
 * to a connection that may read only {@code length} bytes at {@code offset}. All expire. The MAC
 * covers every field, so nothing can be moved from one ticket to another.
 *
 * <pre>
 * u8 kind | u64 expiresMs | u8 role | u64 offset | u64 length | u16 n | node | u16 c | caller | mac (32)
 * </pre>
 */
public record NodeTicket(Kind kind, String node, Identity caller, Instant expiresAt, long offset, long length) {
    /** What the ticket lets its holder do. */
    public enum Kind {
        /**
         * Admits a caller the master knew by its bearer token: on a connection without a certificate, or with the
         * caller's own.
         */
        SESSION,
        WRITE,
        /** Presented in a hello instead of a session ticket: the connection may read one range and nothing else. */
        READ,
        /**
         * Admits a caller the master knew by its certificate, only on a connection that presents it: a ticket read off
         * such a caller's connection serves no one else, with a certificate or without. Last, so that the others keep
         * their numbers on the wire.
         */
        CERTIFIED_SESSION
    }

    /** A session ticket; {@code certified} when the master authenticated {@code caller} by its certificate. */
    public static NodeTicket session(String node, Identity caller, Instant expiresAt, boolean certified) {
        return new NodeTicket(certified ? Kind.CERTIFIED_SESSION : Kind.SESSION, node, caller, expiresAt, 0, 0);
    }

    public static NodeTicket read(String node, Identity caller, Instant expiresAt, long offset, long length) {
        return new NodeTicket(Kind.READ, node, caller, expiresAt, offset, length);
    }

    public static NodeTicket write(String node, Identity caller, Instant expiresAt, long offset, long length) {
        return new NodeTicket(Kind.WRITE, node, caller, expiresAt, offset, length);
    }

    /** The ticket sealed with the node's key, for the client to pass on. */
    public Ticket seal(TicketKey key) {
        byte[] nodeBytes = node.getBytes(StandardCharsets.UTF_8);
        byte[] callerBytes = caller.name().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(1 + 8 + 1 + 8 + 8 + 2 + nodeBytes.length + 2 + callerBytes.length + TicketKey.MAC_BYTES);
        out.put((byte) kind.ordinal()).putLong(expiresAt.toEpochMilli()).put((byte) caller.role().ordinal()).putLong(offset)
                .putLong(length).putShort((short) nodeBytes.length).put(nodeBytes).putShort((short) callerBytes.length)
                .put(callerBytes);
        out.put(key.mac(out.array(), out.position()));
        return Ticket.of(out.array());
    }

    /**
     * What a sealed ticket says, when {@code key} sealed it; empty for anything else (forged, altered,
     * truncated, or sealed for another node). Expiry is the caller's to check.
     */
    public static Optional<NodeTicket> open(byte[] sealed, TicketKey key) {
        try {
            ByteBuffer in = ByteBuffer.wrap(sealed);
            Kind kind = Kind.values()[in.get()];
            Instant expires = Instant.ofEpochMilli(in.getLong());
            Role role = Role.values()[in.get()];
            long offset = in.getLong();
            long length = in.getLong();
            String node = text(in);
            String caller = text(in);
            int signed = in.position();
            byte[] mac = new byte[TicketKey.MAC_BYTES];
            in.get(mac);
            if (in.hasRemaining() || !key.verify(sealed, signed, mac)) {
                return Optional.empty();
            }
            return Optional.of(new NodeTicket(kind, node, new Identity(caller, role), expires, offset, length));
        } catch (RuntimeException malformed) {
            return Optional.empty();
        }
    }

    private static String text(ByteBuffer in) {
        byte[] bytes = new byte[Short.toUnsignedInt(in.getShort())];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Whether this grant covers writing {@code writeLength} bytes at {@code writeOffset}: inside the
     * granted place, which a writer may fill piece by piece.
     */
    public boolean grants(long writeOffset, long writeLength) {
        return kind == Kind.WRITE && within(writeOffset, writeLength);
    }

    /** Whether this read grant covers reading (or checking) {@code readLength} bytes at {@code readOffset}. */
    public boolean allowsRead(long readOffset, long readLength) {
        return kind == Kind.READ && within(readOffset, readLength);
    }

    private boolean within(long at, long bytes) {
        return at >= offset && bytes >= 0 && at - offset <= length - bytes;
    }
}

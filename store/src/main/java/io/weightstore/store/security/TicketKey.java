package io.weightstore.store.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A node's secret for the tickets the master seals for it: made by the node at start, told to the
 * master only inside the mutually authenticated registration, never written to disk. HMAC-SHA256.
 */
public final class TicketKey {
    public static final int BYTES = 32;
    static final int MAC_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private TicketKey(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, ALGORITHM);
    }

    public static TicketKey generate() {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return new TicketKey(bytes);
    }

    /** The key a node sent when it registered. */
    public static TicketKey of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a ticket key is " + BYTES + " bytes: length=" + bytes.length);
        }
        return new TicketKey(bytes.clone());
    }

    /** For registration only: the master needs the key to seal tickets the node can check. */
    public byte[] bytes() {
        return key.getEncoded();
    }

    byte[] mac(byte[] message, int length) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(message, 0, length);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has " + ALGORITHM, e);
        }
    }

    boolean verify(byte[] message, int length, byte[] presented) {
        return MessageDigest.isEqual(mac(message, length), presented);
    }

    @Override
    public String toString() {
        return "TicketKey[redacted]";
    }
}

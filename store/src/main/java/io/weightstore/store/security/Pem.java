package io.weightstore.store.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * PEM text (RFC 7468) for the files this package writes: one certificate or one PKCS#8 key per file. It works on
 * bytes, not strings, so key material can be wiped after use instead of lingering in an immutable string.
 */
final class Pem {
    static final String CERTIFICATE = "CERTIFICATE";
    static final String PRIVATE_KEY = "PRIVATE KEY";

    private Pem() {}

    static byte[] encode(String type, byte[] der) {
        byte[] head = ("-----BEGIN " + type + "-----\n").getBytes(StandardCharsets.US_ASCII);
        byte[] body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encode(der);
        byte[] tail = ("\n-----END " + type + "-----\n").getBytes(StandardCharsets.US_ASCII);
        byte[] pem = new byte[head.length + body.length + tail.length];
        System.arraycopy(head, 0, pem, 0, head.length);
        System.arraycopy(body, 0, pem, head.length, body.length);
        System.arraycopy(tail, 0, pem, head.length + body.length, tail.length);
        Arrays.fill(body, (byte) 0);
        return pem;
    }

    /** The DER bytes of the one block of {@code type} in {@code pem}; {@code what} names the file in messages. */
    static byte[] decode(String type, byte[] pem, String what) throws IOException {
        byte[] begin = ("-----BEGIN " + type + "-----").getBytes(StandardCharsets.US_ASCII);
        byte[] end = ("-----END " + type + "-----").getBytes(StandardCharsets.US_ASCII);
        int start = indexOf(pem, begin, 0);
        int stop = start < 0 ? -1 : indexOf(pem, end, start + begin.length);
        if (start < 0 || stop < 0) {
            throw new IOException(what + " holds no PEM block of type " + type);
        }
        if (indexOf(pem, begin, stop) >= 0) {
            throw new IOException(what + " holds more than one PEM block of type " + type);
        }
        byte[] body = Arrays.copyOfRange(pem, start + begin.length, stop);
        try {
            return Base64.getMimeDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            throw new IOException(what + " holds a " + type + " block that is not valid base64");
        } finally {
            Arrays.fill(body, (byte) 0);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

package io.weightstore.gateway.s3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding as Signature V4 defines it: every byte of the UTF-8 form except the unreserved
 * characters {@code A-Z a-z 0-9 - . _ ~} becomes {@code %XY} with upper-case hex, and a slash is kept
 * only in paths. Clients put their own encoding on the wire (some leave {@code !} or {@code $} alone,
 * some use lower-case hex), so the verifier decodes what arrived and encodes it again this way.
 */
public final class UriEncoding {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private UriEncoding() {}

    /** {@code text} encoded; {@code keepSlash} for a path, where '/' separates segments. */
    public static String encode(String text, boolean keepSlash) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
                    || c == '/' && keepSlash) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /**
     * {@code text} with every {@code %XY} decoded as UTF-8. A '+' stays a '+': in a URI it is a plus
     * (RFC 3986), and S3 clients encode a space as {@code %20}.
     *
     * @throws IllegalArgumentException naming the problem, for a bad escape or bytes that are not UTF-8
     */
    public static String decode(String text) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        int plain = 0;
        for (int i = text.indexOf('%'); i >= 0; i = text.indexOf('%', plain)) {
            bytes.writeBytes(text.substring(plain, i).getBytes(StandardCharsets.UTF_8));
            int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
            if (low < 0) {
                throw new IllegalArgumentException("bad percent-escape at index " + i + " of '" + text + "'");
            }
            bytes.write(high << 4 | low);
            plain = i + 3;
        }
        bytes.writeBytes(text.substring(plain).getBytes(StandardCharsets.UTF_8));
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("'" + text + "' decodes to bytes that are not UTF-8", e);
        }
    }
}

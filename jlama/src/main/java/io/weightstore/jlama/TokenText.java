package io.weightstore.jlama;

import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.TokenizerModel;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of one generation's tokens, decoded as they come. Jlama's {@code BPETokenizer.decode(id)}
 * collects the bytes of byte-fallback tokens ({@code <0xE2>}) in one buffer per tokenizer, shared by
 * every generation and thread, and releases them four at a time whatever the UTF-8 sequence's
 * length: the text of a generation then depends on the generations before it. Here those bytes go
 * through a UTF-8 decoder of this generation's own (an invalid or unfinished sequence becomes
 * U+FFFD); every other token is the tokenizer's, which keeps no state for them.
 */
final class TokenText {
    private static final Pattern BYTE_TOKEN = Pattern.compile("<0x([0-9A-Fa-f]{2})>");

    private final Tokenizer tokenizer;
    private final TokenizerModel vocabulary;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    // At most an unfinished sequence (3 bytes) and the byte that arrives.
    private final ByteBuffer pending = ByteBuffer.allocate(4);
    // Four bytes decode to at most four characters (four replacements, or a surrogate pair).
    private final CharBuffer decoded = CharBuffer.allocate(4);

    TokenText(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
        this.vocabulary = tokenizer.getModel();
    }

    /** The text this token adds; empty while it is part of an unfinished UTF-8 sequence. */
    String decode(int token) {
        if (vocabulary.byteFallback) {
            String piece = vocabulary.vocabLookup.inverse().get((long) token);
            Matcher hex = piece == null ? null : BYTE_TOKEN.matcher(piece);
            if (hex != null && hex.matches()) {
                pending.put((byte) Integer.parseInt(hex.group(1), 16));
                return drain(false);
            }
        }
        return finish() + tokenizer.decode(token);
    }

    /** The replacement for bytes left of an unfinished sequence, when no more bytes will come. */
    String finish() {
        return pending.position() == 0 ? "" : drain(true);
    }

    private String drain(boolean endOfInput) {
        pending.flip();
        decoded.clear();
        utf8.decode(pending, decoded, endOfInput);
        if (endOfInput) {
            utf8.flush(decoded);
            utf8.reset();
        }
        pending.compact();
        return decoded.flip().toString();
    }
}

package io.weightstore.jlama;

import com.github.tjake.jlama.model.llama.LlamaTokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.BPETokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.TokenizerModel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of one generation's tokens, decoded as they come, through a UTF-8 decoder of this
 * generation's own (an invalid or unfinished sequence becomes U+FFFD). Two kinds of vocabulary
 * carry bytes rather than text, and Jlama's per-token {@code decode(id)} gets both wrong:
 *
 * <ul>
 *   <li>byte fallback ({@code <0xE2>}, SentencePiece Llama): {@code BPETokenizer} collects those bytes
 *       in one buffer per tokenizer, shared by every generation and thread, and releases them four
 *       at a time whatever the sequence's length, so the text of a generation depends on the ones
 *       before it;
 *   <li>byte-level BPE (a {@code ByteLevel} pre-tokenizer: Llama 3, Qwen2), whose pieces spell each
 *       byte as one character of GPT-2's table: Jlama maps each character back to its byte and
 *       returns that byte as a character of its own, so "é" (C3 A9) comes out as "Ã©".
 * </ul>
 *
 * Here both become bytes for the decoder; every other token is the tokenizer's, which keeps no state for it.
 */
final class TokenText {
    private static final Pattern BYTE_TOKEN = Pattern.compile("<0x([0-9A-Fa-f]{2})>");

    private final Tokenizer tokenizer;
    private final TokenizerModel vocabulary;
    private final boolean byteLevel;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    // The bytes of an unfinished sequence, at most 3, kept for the token that finishes it.
    private ByteBuffer pending = ByteBuffer.allocate(0);

    TokenText(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
        this.vocabulary = tokenizer.getModel();
        this.byteLevel = vocabulary.isLegacy() && !vocabulary.byteFallback && tokenizer instanceof BPETokenizer;
    }

    /** The text this token adds; empty while it is part of an unfinished UTF-8 sequence. */
    String decode(int token) {
        Optional<byte[]> bytes = bytesOf(token);
        if (bytes.isPresent()) {
            return drain(bytes.get(), false);
        }
        return finish() + tokenizer.decode(token);
    }

    /** The replacement for bytes left of an unfinished sequence, when no more bytes will come. */
    String finish() {
        return pending.hasRemaining() ? drain(new byte[0], true) : "";
    }

    /** The bytes {@code token} stands for, when the vocabulary spells it in bytes; empty for a piece of text. */
    private Optional<byte[]> bytesOf(int token) {
        String piece = vocabulary.vocabLookup.inverse().get((long) token);
        if (piece == null) {
            return Optional.empty();
        }
        if (vocabulary.byteFallback) {
            Matcher hex = BYTE_TOKEN.matcher(piece);
            return hex.matches() ? Optional.of(new byte[] {(byte) Integer.parseInt(hex.group(1), 16)}) : Optional.empty();
        }
        if (!byteLevel) {
            return Optional.empty();
        }
        if (tokenizer instanceof LlamaTokenizer) {
            // What Jlama's Llama tokenizer drops or replaces before it maps characters back to bytes.
            piece = piece.replaceAll("</?s>", "").replace("\u2581", " ");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(piece.length());
        piece.codePoints().forEach(c -> {
            Integer b = BPETokenizer.alteredBytes.inverse().get(c);
            if (b != null || c < 0x100) {
                bytes.write(b != null ? b : c);
            } else {
                // Not a character of the byte table: text an added token spells as it is.
                bytes.writeBytes(Character.toString(c).getBytes(StandardCharsets.UTF_8));
            }
        });
        return Optional.of(bytes.toByteArray());
    }

    private String drain(byte[] more, boolean endOfInput) {
        ByteBuffer in = ByteBuffer.allocate(pending.remaining() + more.length).put(pending).put(more).flip();
        // A byte decodes to at most one character; four make a surrogate pair, two characters.
        CharBuffer decoded = CharBuffer.allocate(in.remaining() + 1);
        utf8.decode(in, decoded, endOfInput);
        if (endOfInput) {
            utf8.flush(decoded);
            utf8.reset();
        }
        pending = in.slice();
        return decoded.flip().toString();
    }
}

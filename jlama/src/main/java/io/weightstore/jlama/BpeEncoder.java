package io.weightstore.jlama;

import com.github.tjake.jlama.safetensors.tokenizer.BPETokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import com.github.tjake.jlama.safetensors.tokenizer.TokenizerModel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * Jlama's BPE encoding ({@link BPETokenizer#encode}) token for token, with each piece's merges taken from a queue.
 * Jlama scans every pair of a piece for each merge it makes, formatting two strings a pair: quadratic in the piece's
 * length, and a SentencePiece vocabulary without a pre-tokenizer (Llama 2's, the synth checkpoints') makes the whole
 * prompt one piece, so a prompt of a few thousand characters took seconds and one at a model's context minutes.
 *
 * <p>The same tokens come out because the same steps are taken: the tokenizer's own pieces, pre-processing and first
 * tokens (its protected methods, called through their handles), then at each step the merge Jlama's scan picks, the pair
 * of lowest rank, the leftmost of equals. The queue holds every adjacent pair that merges, ordered by rank and then by
 * position; a pair whose tokens changed since it was queued is passed over when it comes up.
 */
public final class BpeEncoder {
    private static final MethodHandle PRE_PROCESS;
    private static final MethodHandle ENCODE_BYTE;
    private static final MethodHandle DECODE_FOR_MERGES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(BPETokenizer.class, MethodHandles.lookup());
            PRE_PROCESS = lookup.findVirtual(BPETokenizer.class, "preProcess", MethodType.methodType(String.class, String.class));
            ENCODE_BYTE = lookup.findVirtual(BPETokenizer.class, "encodeCharacterAsToken", MethodType.methodType(long.class, byte.class));
            DECODE_FOR_MERGES = lookup.findVirtual(BPETokenizer.class, "decodeInternal", MethodType.methodType(String.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private BpeEncoder() {}

    /** The tokens of {@code text}, as {@code tokenizer.encode(text)} gives them. */
    public static long[] encode(Tokenizer tokenizer, String text) {
        if (!(tokenizer instanceof BPETokenizer bpe)) {
            return tokenizer.encode(text);
        }
        TokenizerModel model = bpe.getModel();
        long[] tokens = new long[0];
        int count = 0;
        for (String piece : bpe.tokenize(text)) {
            long[] pieceTokens;
            Long added = model.addedTokens() == null ? null : model.addedTokens().get(piece);
            if (added != null) {
                pieceTokens = new long[] {added};
            } else {
                pieceTokens = new PieceMerges(bpe, firstTokens(bpe, preProcess(bpe, piece))).merge();
            }
            if (count + pieceTokens.length > tokens.length) {
                tokens = Arrays.copyOf(tokens, Math.max(2 * tokens.length, count + pieceTokens.length));
            }
            System.arraycopy(pieceTokens, 0, tokens, count, pieceTokens.length);
            count += pieceTokens.length;
        }
        return Arrays.copyOf(tokens, count);
    }

    /** A token per character the vocabulary holds, else its UTF-8 bytes' tokens (byte fallback), else the unknown token. */
    private static long[] firstTokens(BPETokenizer bpe, String piece) {
        TokenizerModel model = bpe.getModel();
        int[] codes = piece.codePoints().toArray();
        long[] tokens = new long[codes.length];
        int count = 0;
        for (int code : codes) {
            String character = Character.toString(code);
            Long id = model.vocabLookup.get(character);
            if (id != null) {
                tokens = room(tokens, count, 1);
                tokens[count++] = id;
            } else if (model.byteFallback) {
                byte[] bytes = character.getBytes(StandardCharsets.UTF_8);
                tokens = room(tokens, count, bytes.length);
                for (byte b : bytes) {
                    tokens[count++] = encodeByte(bpe, b);
                }
            } else if (model.unkToken != null) {
                Long unknown = model.vocabLookup.get(model.unkToken);
                if (unknown == null) {
                    throw new IllegalArgumentException("the tokenizer's unknown token '" + model.unkToken + "' is not in its vocabulary");
                }
                tokens = room(tokens, count, 1);
                tokens[count++] = unknown;
            }
        }
        return Arrays.copyOf(tokens, count);
    }

    private static long[] room(long[] tokens, int count, int more) {
        return count + more <= tokens.length ? tokens : Arrays.copyOf(tokens, Math.max(2 * tokens.length, count + more));
    }

    private static String preProcess(BPETokenizer bpe, String piece) {
        try {
            return (String) PRE_PROCESS.invokeExact(bpe, piece);
        } catch (Throwable e) {
            throw rethrown(e);
        }
    }

    private static long encodeByte(BPETokenizer bpe, byte b) {
        try {
            return (long) ENCODE_BYTE.invokeExact(bpe, b);
        } catch (Throwable e) {
            throw rethrown(e);
        }
    }

    private static String decodeForMerges(BPETokenizer bpe, long id) {
        try {
            return (String) DECODE_FOR_MERGES.invokeExact(bpe, id);
        } catch (Throwable e) {
            throw rethrown(e);
        }
    }

    private static RuntimeException rethrown(Throwable e) {
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (e instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException(e);
    }

    /** One piece's tokens as a list linked both ways, merged pair by pair in Jlama's order. */
    private static final class PieceMerges {
        private static final Comparator<Pair> ORDER = Comparator.comparingLong(Pair::rank).thenComparingInt(Pair::left);

        private final BPETokenizer bpe;
        private final TokenizerModel model;
        private final long[] ids;
        private final String[] texts;
        private final int[] previous;
        private final int[] next;
        /** Bumped when a token changes or leaves, so that pairs queued before are known stale. */
        private final int[] versions;
        private final PriorityQueue<Pair> queue = new PriorityQueue<>(ORDER);

        /** Tokens {@code left} and {@code right}, at {@code leftVersion} and {@code rightVersion}, merge into {@code merged}. */
        private record Pair(long rank, int left, int right, int leftVersion, int rightVersion, long merged) {}

        PieceMerges(BPETokenizer bpe, long[] ids) {
            this.bpe = bpe;
            this.model = bpe.getModel();
            this.ids = ids;
            int n = ids.length;
            this.texts = new String[n];
            this.previous = new int[n];
            this.next = new int[n];
            this.versions = new int[n];
            for (int i = 0; i < n; i++) {
                texts[i] = decodeForMerges(bpe, ids[i]);
                previous[i] = i - 1;
                next[i] = i + 1 < n ? i + 1 : -1;
            }
            for (int i = 0; i + 1 < n; i++) {
                offer(i, i + 1);
            }
        }

        long[] merge() {
            while (!queue.isEmpty()) {
                Pair pair = queue.poll();
                if (versions[pair.left()] != pair.leftVersion() || versions[pair.right()] != pair.rightVersion()
                        || next[pair.left()] != pair.right()) {
                    continue;
                }
                int left = pair.left();
                int right = pair.right();
                ids[left] = pair.merged();
                texts[left] = decodeForMerges(bpe, pair.merged());
                versions[left]++;
                versions[right]++;
                next[left] = next[right];
                if (next[right] >= 0) {
                    previous[next[right]] = left;
                }
                if (previous[left] >= 0) {
                    offer(previous[left], left);
                }
                if (next[left] >= 0) {
                    offer(left, next[left]);
                }
            }
            long[] merged = new long[ids.length];
            int count = 0;
            for (int i = ids.length == 0 ? -1 : 0; i >= 0; i = next[i]) {
                merged[count++] = ids[i];
            }
            return Arrays.copyOf(merged, count);
        }

        /** Queues {@code left} and {@code right} if the vocabulary merges them, as Jlama's scan would consider them. */
        private void offer(int left, int right) {
            Long rank = model.merges.get(texts[left] + " " + texts[right]);
            if (rank == null) {
                return;
            }
            Long merged = model.vocabLookup.get(texts[left] + texts[right]);
            if (merged != null) {
                queue.add(new Pair(rank, left, right, versions[left], versions[right], merged));
            }
        }
    }
}

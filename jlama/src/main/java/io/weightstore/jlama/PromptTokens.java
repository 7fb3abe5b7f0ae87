package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** A prompt's tokens as {@link AbstractModel#encodePrompt} gives them, encoded by {@link BpeEncoder}. */
public final class PromptTokens {
    private static final MethodHandle ADD_BOS;

    static {
        try {
            ADD_BOS = MethodHandles.privateLookupIn(AbstractModel.class, MethodHandles.lookup())
                    .findVirtual(AbstractModel.class, "addBosToken", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private PromptTokens() {}

    /** The model's beginning-of-sequence token first, once, when the model asks for one; then the prompt's. */
    public static int[] of(AbstractModel model, PromptContext prompt) {
        long[] encoded = BpeEncoder.encode(model.getTokenizer(), prompt.getPrompt());
        if (!addsBos(model)) {
            return toInts(encoded, 0, 0);
        }
        int bos = model.getConfig().bosToken;
        int skip = encoded.length > 0 && encoded[0] == bos ? 1 : 0;
        int[] tokens = toInts(encoded, skip, 1);
        tokens[0] = bos;
        return tokens;
    }

    /** {@code encoded} from {@code from} on, after {@code before} free places. */
    private static int[] toInts(long[] encoded, int from, int before) {
        int[] tokens = new int[before + encoded.length - from];
        for (int i = from; i < encoded.length; i++) {
            tokens[before + i - from] = Math.toIntExact(encoded[i]);
        }
        return tokens;
    }

    private static boolean addsBos(AbstractModel model) {
        try {
            return (boolean) ADD_BOS.invokeExact(model);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}

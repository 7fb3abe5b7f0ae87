package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.Config;

/**
 * How many tokens, prompt and completion together, a Jlama model can hold. That is the context
 * length of its config, less what Jlama 0.8.4's RoPE table lacks: the table holds
 * {@code contextLength × headSize/2} rotations, but attention looks a rotation up at
 * {@code position × headSize/2} plus the offset of the head within the layer, so for the last
 * {@code 2 × heads − 2} positions (key-value heads with grouped-query attention) the look-up runs past
 * the table's end and the pass fails. Below that the offset shifts every position of a head alike,
 * which attention, seeing only differences of positions, does not notice.
 */
public final class ContextWindow {
    private ContextWindow() {}

    public static int tokens(AbstractModel model) {
        Config c = model.getConfig();
        if (c.ropeFreqs.isEmpty()) {
            return c.contextLength;
        }
        int heads = c.isGQA ? c.numberOfKeyValueHeads : c.numberOfHeads;
        return Math.min(c.contextLength, c.contextLength - 2 * heads + 2);
    }
}

package io.weightstore.format.synth;

import io.weightstore.format.TensorSpec;
import java.util.ArrayList;
import java.util.List;

/** The tensor names and shapes of a Hugging Face Llama checkpoint, in the order HF writes them. */
final class LlamaTensors {
    private LlamaTensors() {}

    static List<TensorSpec> of(SynthSpec spec) {
        long h = spec.hidden();
        long kv = spec.kvDim();
        long im = spec.intermediate();
        List<TensorSpec> tensors = new ArrayList<>();
        tensors.add(tensor(spec, "model.embed_tokens.weight", spec.vocab(), h));
        for (int layer = 0; layer < spec.layers(); layer++) {
            String base = "model.layers." + layer + ".";
            tensors.add(tensor(spec, base + "self_attn.q_proj.weight", h, h));
            tensors.add(tensor(spec, base + "self_attn.k_proj.weight", kv, h));
            tensors.add(tensor(spec, base + "self_attn.v_proj.weight", kv, h));
            tensors.add(tensor(spec, base + "self_attn.o_proj.weight", h, h));
            tensors.add(tensor(spec, base + "mlp.gate_proj.weight", im, h));
            tensors.add(tensor(spec, base + "mlp.up_proj.weight", im, h));
            tensors.add(tensor(spec, base + "mlp.down_proj.weight", h, im));
            tensors.add(tensor(spec, base + "input_layernorm.weight", h));
            tensors.add(tensor(spec, base + "post_attention_layernorm.weight", h));
        }
        tensors.add(tensor(spec, "model.norm.weight", h));
        tensors.add(tensor(spec, "lm_head.weight", spec.vocab(), h));
        return tensors;
    }

    static boolean isNorm(String name) {
        return name.endsWith("norm.weight");
    }

    private static TensorSpec tensor(SynthSpec spec, String name, long... shape) {
        List<Long> dims = new ArrayList<>(shape.length);
        for (long dim : shape) {
            dims.add(dim);
        }
        return new TensorSpec(name, spec.dtype(), dims);
    }
}

/** Safetensors files and checkpoint directories: parsing, validation, writing, and synthetic checkpoints. */
module io.weightstore.format {
    requires transitive com.fasterxml.jackson.annotation;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;

    exports io.weightstore.format;
    exports io.weightstore.format.synth;

    opens io.weightstore.format to com.fasterxml.jackson.databind;
    opens io.weightstore.format.synth to com.fasterxml.jackson.databind;
}

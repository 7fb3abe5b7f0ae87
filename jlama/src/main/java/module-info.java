/** Jlama over the store: a WeightLoader for weightstore:// checkpoints, generation, and the OpenAI-compatible server. */
module io.weightstore.jlama {
    requires transitive io.weightstore.weights;
    requires transitive jlama.core;
    requires com.fasterxml.jackson.databind;
    requires jdk.httpserver;
    requires jdk.incubator.vector;
    requires org.slf4j;

    exports io.weightstore.jlama;
}

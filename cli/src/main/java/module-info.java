/** The weightstore command: every user-facing verb. Further verbs join through {@link io.weightstore.cli.CommandPlugin}. */
module io.weightstore.cli {
    requires transitive io.weightstore.jlama;
    requires io.weightstore.gateway;
    requires transitive info.picocli;
    requires com.fasterxml.jackson.databind;
    // To quiet gRPC's channel, which logs through java.util.logging.
    requires java.logging;
    requires org.slf4j;

    exports io.weightstore.cli;
    exports io.weightstore.cli.output;

    // picocli fills commands' fields by reflection; Jackson prints their report records.
    opens io.weightstore.cli to info.picocli, com.fasterxml.jackson.databind;

    uses io.weightstore.cli.CommandPlugin;
}

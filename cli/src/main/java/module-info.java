/** The weightstore command: every user-facing verb. Further verbs join through {@link io.weightstore.cli.CommandPlugin}. */
module io.weightstore.cli {
    requires transitive io.weightstore.jlama;
    requires io.weightstore.gateway;
    requires transitive info.picocli;
    requires info.picocli.codegen;
    requires com.fasterxml.jackson.databind;
    // To quiet gRPC's channel, which logs through java.util.logging.
    requires java.logging;
    requires org.slf4j;
    // The logging backend, configured in code (LogSetup): text lines, or JSON lines with --log-format json.
    requires ch.qos.logback.classic;
    requires ch.qos.logback.core;
    requires com.fasterxml.jackson.core;
    // The operations port (metrics, health, readiness) of master, node and gateway.
    requires io.helidon.http;
    requires io.helidon.webserver;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;

    exports io.weightstore.cli;
    exports io.weightstore.cli.output;
    exports io.weightstore.cli.ops;

    // picocli fills commands' fields by reflection; Jackson prints their report records.
    opens io.weightstore.cli to info.picocli, com.fasterxml.jackson.databind;
    opens io.weightstore.cli.ops to info.picocli;

    uses io.weightstore.cli.CommandPlugin;

    provides ch.qos.logback.classic.spi.Configurator with io.weightstore.cli.logging.LogSetup;
}

/**
 * Benchmarks, outside the product: the bench verbs of the weightstore command and the JMH
 * micro-benchmarks. Open, so JMH and picocli can reach the benchmark and command classes.
 */
open module io.weightstore.bench {
    requires io.weightstore.cli;
    requires io.weightstore.gateway;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires java.management;
    requires jdk.management;
    requires java.net.http;
    requires jetcd.core;
    requires jmh.core;
    requires redis.clients.jedis;

    provides io.weightstore.cli.CommandPlugin with io.weightstore.bench.cli.BenchPlugin;
}

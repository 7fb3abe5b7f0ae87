package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.MasterSilence;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway and its master as processes: the gateway's {@code /ready} follows whether its master answers, by the rule a
 * node's does, and not only whether it answered once at the start.
 */
class GatewayReadinessTest {
    private static final Pattern MASTER_PORT = Pattern.compile("master listening on [^:]+:(\\d+)");
    private static final Pattern METRICS = Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics");
    /** The bound, and as much again for two JVMs sharing the test machine's cores with the build. */
    private static final Duration NOT_READY_WITHIN = new MasterSilence(MasterSilence.DEFAULT_INTERVAL).limit().multipliedBy(2);

    private static final String NOT_READY_LINE = "the gateway is not ready: the master has not answered";
    private static final String READY_AGAIN_LINE = "the master answers again: the gateway is ready";

    @TempDir
    Path tmp;

    @Test
    void aGatewayWhoseMasterFreezesOrStopsIsNotReadyWithinTheBoundAndReadyAgainOnceItAnswers() throws Exception {
        String[] masterArgs = {"master", "--insecure", "--port", "0", "--data-dir", tmp.resolve("meta").toString()};
        CliProcess master = CliProcess.start(tmp.resolve("master.log"), masterArgs);
        CliProcess gateway = null;
        try {
            String masterPort = MetricsEndpointsTest.await(master, MASTER_PORT);
            gateway = CliProcess.start(tmp.resolve("gateway.log"), "gateway", "--anonymous", "--port", "0", "--metrics-port", "0",
                    "--store", "127.0.0.1:" + masterPort);
            int ops = Integer.parseInt(MetricsEndpointsTest.await(gateway, METRICS));
            assertThat(Scrape.get(ops, "/ready").statusCode()).isEqualTo(200);
            assertThat(Scrape.get(ops, "/ready").body()).contains("\"status\":\"ready\"", "serving bucket weights");
            assertThat(Scrape.of(ops).value("weightstore_gateway_master_answering")).isEqualTo(1);

            // Frozen, the master takes calls and answers none: the gateway's ask waits on its deadline, the verdict does not.
            master.signal("STOP");
            long frozen = System.nanoTime();
            Awaits.until(NOT_READY_WITHIN, "the gateway to stop being ready", () -> Scrape.get(ops, "/ready").statusCode() == 503);
            assertThat(Duration.ofNanos(System.nanoTime() - frozen)).isLessThanOrEqualTo(NOT_READY_WITHIN);
            CliProcess logging = gateway;
            awaitLogged(logging, NOT_READY_LINE, 1);
            master.signal("CONT");
            Awaits.until(Duration.ofSeconds(30), "the gateway to be ready once its master thaws",
                    () -> Scrape.get(ops, "/ready").statusCode() == 200);
            awaitLogged(logging, READY_AGAIN_LINE, 1);

            master.stop();
            long stopped = System.nanoTime();
            Awaits.until(NOT_READY_WITHIN, "the gateway to stop being ready", () -> Scrape.get(ops, "/ready").statusCode() == 503);
            assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThanOrEqualTo(NOT_READY_WITHIN);
            assertThat(Scrape.get(ops, "/ready").body()).contains("\"status\":\"not ready\"", "the master has not answered for",
                    "127.0.0.1:" + masterPort);
            assertThat(Scrape.get(ops, "/health").statusCode()).as("the process still runs").isEqualTo(200);
            Scrape silent = Scrape.of(ops);
            assertThat(silent.has("weightstore_gateway_master_answering")).isTrue();
            assertThat(silent.value("weightstore_gateway_master_answering")).isZero();

            // The same master back on its port: the gateway's next asks reach it.
            master = CliProcess.start(tmp.resolve("master-again.log"), "master", "--insecure", "--port", masterPort, "--data-dir",
                    tmp.resolve("meta").toString());
            Awaits.until(Duration.ofSeconds(60), "the gateway to be ready again", () -> Scrape.get(ops, "/ready").statusCode() == 200);
            awaitLogged(logging, READY_AGAIN_LINE, 2);
            assertThat(logged(gateway, NOT_READY_LINE)).as("each change is logged once, not at each ask").isEqualTo(2);
        } finally {
            if (gateway != null) {
                gateway.stop();
            }
            master.stop();
        }
    }

    private static void awaitLogged(CliProcess process, String line, int times) throws Exception {
        Awaits.until(Duration.ofSeconds(10), "the gateway to log '" + line + "' " + times + " times",
                () -> logged(process, line) == times);
    }

    private static long logged(CliProcess process, String line) throws Exception {
        return process.output().lines().filter(l -> l.contains(line)).count();
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import picocli.CommandLine;

/** The configuration file: checked with line and column, its settings the flags' defaults, and flags over it. */
@Isolated("sets the JVM-wide configuration file property, which the CLI in every other test reads")
class ConfigFileTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path example() throws Exception {
        return ExampleConfig.under(tmp);
    }

    @Test
    void theShippedExampleIsValid() throws Exception {
        CliRun run = CliRun.of("config", "check", example().toString());
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).contains("OK (client, master, node, gateway, serve)");
    }

    @Test
    void everyProblemIsReportedWithItsLineAndColumn() throws Exception {
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), """
                client:
                  store: m1:7070
                  conections: 4
                master:
                  port: seventy
                  metrics-port: 70000
                  slice-size: 64Q
                  credentials: /nowhere/master
                node:
                  io-timeout: soon
                  capacity: [1G, 2G]
                  insecure: maybe
                gateway:
                  secret-key: hunter2
                servve:
                  port: 8000
                """);
        CliRun run = CliRun.of("config", "check", bad.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains(
                bad + ":3:15: client.conections: unknown setting (did you mean 'connections'?)",
                bad + ":5:9: master.port: 'seventy' is not an int",
                bad + ":6:17: master.metrics-port: must be from 0 to 65535, found 70000",
                bad + ":7:15: master.slice-size: ",
                bad + ":8:16: master.credentials: no such credentials directory: /nowhere/master",
                bad + ":10:15: node.io-timeout: duration 'soon' is not a number with ms, s, m or h",
                bad + ":11:13: node.capacity: expected one value, found a list",
                bad + ":12:13: node.insecure: expected true or false, found 'maybe'",
                bad + ":14:15: gateway.secret-key: a secret does not belong in a configuration file; give it in $WEIGHTSTORE_GATEWAY_SECRET_KEY",
                bad + ":15:1: servve: unknown section (did you mean 'serve'?)",
                bad + ": 10 problems");

        JsonNode report = JSON.readTree(CliRun.of("config", "check", bad.toString(), "--json").out());
        assertThat(report.get("valid").asBoolean()).isFalse();
        assertThat(report.get("problems")).hasSize(10);
        JsonNode first = report.get("problems").get(0);
        assertThat(first.get("line").asInt()).isEqualTo(3);
        assertThat(first.get("column").asInt()).isEqualTo(15);
        assertThat(first.get("section").asText()).isEqualTo("client");
        assertThat(first.get("key").asText()).isEqualTo("conections");
    }

    @Test
    void anEmptyCredentialsIsCalledEmptyNotADirectoryWithoutACertificate() throws Exception {
        Path blank = Files.writeString(tmp.resolve("blank.yaml"), """
                client:
                  credentials: ""
                """);
        CliRun run = CliRun.of("config", "check", blank.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains(blank + ":2:16: client.credentials: empty: name a credentials directory, or leave the key out");
    }

    @Test
    void aFileThatIsNotYamlOrIsTheOldPropertiesFormatSaysSo() throws Exception {
        Path broken = Files.writeString(tmp.resolve("broken.yaml"), "master:\n  port: 7070\n   bind: [0.0.0.0\n");
        CliRun run = CliRun.of("config", "check", broken.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains(broken + ":3:").contains("not valid YAML");

        Path old = Files.writeString(tmp.resolve("weightstore.properties"), "# old\nmaster=m1:7070\ncredentials=/etc/ws\n");
        CliRun migrate = CliRun.of("config", "check", old.toString());
        assertThat(migrate.exitCode()).isEqualTo(1);
        assertThat(migrate.out()).contains("Java properties file", "client:\n  credentials: /etc/ws\n  store: m1:7070\n");
    }

    @Test
    void aSecondYamlDocumentIsRefusedRatherThanItsSettingsIgnored() throws Exception {
        Path split = Files.writeString(tmp.resolve("split.yaml"), """
                client:
                  store: m1:7070
                ---
                client:
                  credentials: /etc/weightstore/client
                """);
        CliRun run = CliRun.of("config", "check", split.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains(split + ":4:").contains("more than one YAML document");
    }

    @Test
    void settingsAreDefaultsThatFlagsOverride() throws Exception {
        Path file = Files.writeString(tmp.resolve("ws.yaml"), """
                client:
                  store: 127.0.0.1:7070
                  connections: 7
                gateway:
                  port: 9100
                  anonymous: true
                  chunk-size: 4M
                node:
                  pool: /dev/shm/p
                  capacity: 1G
                """);
        CommandLine.ParseResult gateway = WeightstoreCli.commandLine().parseArgs("--config", file.toString(), "gateway").subcommand();
        assertThat(value(gateway, "--port")).isEqualTo(9100);
        assertThat(value(gateway, "--anonymous")).isEqualTo(true);
        assertThat(value(gateway, "--chunk-size")).isEqualTo(4L << 20);
        assertThat(value(gateway, "--connections")).isEqualTo(7);
        assertThat(value(gateway, "--store")).isEqualTo("127.0.0.1:7070");
        assertThat(value(gateway, "--bucket")).isEqualTo("weights");

        CommandLine.ParseResult flagged = WeightstoreCli.commandLine()
                .parseArgs("gateway", "--config=" + file, "--port", "9200").subcommand();
        assertThat(value(flagged, "--port")).isEqualTo(9200);

        // node's required --pool and --capacity come from the file; its master from the client section.
        CommandLine.ParseResult node = WeightstoreCli.commandLine().parseArgs("node", "--config", file.toString()).subcommand();
        assertThat(value(node, "--pool")).isEqualTo(Path.of("/dev/shm/p"));
        assertThat(value(node, "--master")).isEqualTo("127.0.0.1:7070");
    }

    @Test
    void aServerRefusesToStartOnABadFileNamingEveryProblem() throws Exception {
        Path file = Files.writeString(tmp.resolve("ws.yaml"), "master:\n  prot: 7070\n");
        CliRun run = CliRun.of("master", "--config", file.toString(), "--insecure", "--data-dir", tmp.resolve("m").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("config " + file + ": line 2, column 9: master.prot: unknown setting (did you mean 'port'?)");
        assertThat(tmp.resolve("m")).doesNotExist();

        CliRun missing = CliRun.of("store", "ls", "--config", tmp.resolve("nowhere.yaml").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("nowhere.yaml: line 1, column 1: no such file");
    }

    @Test
    void aVerbIsStoppedOnlyByTheSectionsItReadsSoRolesShareOneFile() throws Exception {
        // The node host of a shared file: the master's credentials directory is not there (or not readable by the node).
        Path file = Files.writeString(tmp.resolve("ws.yaml"), """
                master:
                  credentials: /nowhere/master
                gateway:
                  prot: 9000
                """);

        CliRun ls = CliRun.of("store", "ls", "--config", file.toString());
        assertThat(ls.exitCode()).as(ls.err()).isZero();

        CliRun master = CliRun.of("master", "--config", file.toString(), "--insecure", "--data-dir", tmp.resolve("m").toString());
        assertThat(master.exitCode()).isEqualTo(2);
        assertThat(master.err()).contains("master.credentials: no such credentials directory: /nowhere/master")
                .doesNotContain("gateway.prot");

        CliRun check = CliRun.of("config", "check", file.toString());
        assertThat(check.exitCode()).isEqualTo(1);
        assertThat(check.out()).contains("master.credentials", "gateway.prot");
    }

    @Test
    void aNodeReadsOnlyTheStoreOfTheClientSection() throws Exception {
        // A node host of a shared file: the clients' credentials directory is not there.
        Path file = Files.writeString(tmp.resolve("ws.yaml"), """
                client:
                  store: 127.0.0.1:7070
                  credentials: /nowhere/client
                """);

        CommandLine.ParseResult node = WeightstoreCli.commandLine().parseArgs("--config", file.toString(), "node", "--pool", "/dev/shm/p",
                "--capacity", "1G").subcommand();
        assertThat(value(node, "--master")).isEqualTo("127.0.0.1:7070");
        assertThatThrownBy(() -> WeightstoreCli.commandLine().parseArgs("--config", file.toString(), "store", "ls"))
                .hasMessageContaining("client.credentials: no such credentials directory: /nowhere/client");
    }

    @Test
    void anUnknownSectionStopsEveryVerbAsItMayBeOneTheyReadMisspelt() throws Exception {
        Path file = Files.writeString(tmp.resolve("ws.yaml"), "clinet:\n  store: m1:7070\n");

        CliRun ls = CliRun.of("store", "ls", "--config", file.toString());
        assertThat(ls.exitCode()).isEqualTo(2);
        assertThat(ls.err()).contains("clinet", "unknown section (did you mean 'client'?)");
    }

    private static Object value(CommandLine.ParseResult result, String option) {
        return result.commandSpec().findOption(option).getValue();
    }
}

package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated("swaps System.out and System.err, where every other test's servers log")
class CertCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** Every run's output, with whatever reached System.out and System.err (where a logger would write). */
    private final List<String> printed = new ArrayList<>();

    private CliRun run(String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream process = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(process, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            CliRun run = CliRun.of(args);
            printed.add(run.out());
            printed.add(run.err());
            return run;
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            printed.add(process.toString(StandardCharsets.UTF_8));
        }
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private String ca() {
        String dir = tmp.resolve("ca").toString();
        CliRun init = run("cert", "init", "--dir", dir);
        assertThat(init.exitCode()).as(init.err()).isZero();
        return dir;
    }

    @Test
    void initIssueAndShow() throws IOException {
        String dir = ca();
        assertThat(printed.getFirst()).contains("created CA CN=weightstore cluster CA ", "ca.key", "sha256 ");
        assertThat(mode(Path.of(dir))).isEqualTo("rwx------");
        assertThat(mode(Path.of(dir, "ca.key"))).isEqualTo("rw-------");

        CliRun issue = run("cert", "issue", "--dir", dir, "--role", "node", "--name", "node-1",
                "--host", "10.1.2.3", "--host", "node-1.cluster", "--validity-days", "30");
        assertThat(issue.exitCode()).as(issue.err()).isZero();
        assertThat(issue.out()).contains("issued node node-1 in " + dir + "/node-1", "identity.key (0600)");
        Path creds = Path.of(dir, "node-1");
        assertThat(mode(creds)).isEqualTo("rwx------");
        assertThat(mode(creds.resolve("identity.key"))).isEqualTo("rw-------");

        CliRun show = run("cert", "show", creds.toString());
        assertThat(show.exitCode()).as(show.err()).isZero();
        assertThat(show.out()).contains("subject:   CN=node-1", "identity:  node node-1",
                "issuer:    CN=weightstore cluster CA ", "(valid now)", "hosts:     10.1.2.3, node-1.cluster",
                "sha256:    ");
        assertThat(show.out().lines().filter(l -> l.startsWith("sha256:")).findFirst().orElseThrow())
                .matches("sha256: +([0-9A-F]{2}:){31}[0-9A-F]{2}");
        assertThat(show.out()).contains(issue.out().lines().filter(l -> l.startsWith("sha256 ")).findFirst()
                .orElseThrow().substring("sha256 ".length()));

        JsonNode json = JSON.readTree(run("cert", "show", creds.resolve("identity.crt").toString(), "--json").out());
        assertThat(json.get("role").asText()).isEqualTo("node");
        assertThat(json.get("name").asText()).isEqualTo("node-1");
        assertThat(json.get("ca").asBoolean()).isFalse();
        assertThat(json.get("status").asText()).isEqualTo("valid now");
        assertThat(json.get("hosts")).hasSize(2);

        CliRun showCa = run("cert", "show", dir);
        assertThat(showCa.out()).contains("identity:  none (a CA certificate)");
        assertThat(JSON.readTree(run("cert", "show", dir, "--json").out()).get("ca").asBoolean()).isTrue();

        CliRun other = run("cert", "issue", "--dir", dir, "--role", "READER", "--name", "alice",
                "--out", tmp.resolve("alice").toString());
        assertThat(other.exitCode()).as(other.err()).isZero();
        assertThat(Files.exists(tmp.resolve("alice/identity.key"))).isTrue();
    }

    @Test
    void errorsSayWhatIsWrongWithExitCodes() {
        String missing = tmp.resolve("nothing").toString();
        CliRun noCa = run("cert", "issue", "--dir", missing, "--role", "node", "--name", "n1");
        assertThat(noCa.exitCode()).isEqualTo(1);
        assertThat(noCa.err()).contains("no CA in " + missing, "weightstore cert init --dir " + missing);

        String dir = ca();
        CliRun again = run("cert", "init", "--dir", dir);
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("already holds a CA (ca.crt, ca.key); refusing to overwrite it");

        CliRun badRole = run("cert", "issue", "--dir", dir, "--role", "root", "--name", "n1");
        assertThat(badRole.exitCode()).isEqualTo(2);
        assertThat(badRole.err()).contains("role=root is not one of master, node, writer, reader, admin");

        for (String bad : new String[] {"../escape", "-dash", "has space", "x".repeat(129)}) {
            CliRun badName = run("cert", "issue", "--dir", dir, "--role", "node", "--name", bad);
            assertThat(badName.exitCode()).as(bad).isEqualTo(2);
            assertThat(badName.err()).contains("name=" + bad + " must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}");
        }
        assertThat(Files.exists(tmp.resolve("escape"))).isFalse();

        assertThat(run("cert", "issue", "--dir", dir, "--role", "node", "--name", "n1").exitCode()).isZero();
        CliRun exists = run("cert", "issue", "--dir", dir, "--role", "node", "--name", "n1");
        assertThat(exists.exitCode()).isEqualTo(1);
        assertThat(exists.err()).contains("already holds credentials (ca.crt, identity.crt, identity.key)",
                "(--force replaces them)");
        assertThat(run("cert", "issue", "--dir", dir, "--role", "node", "--name", "n1", "--force").exitCode()).isZero();

        CliRun tooLong = run("cert", "issue", "--dir", dir, "--role", "node", "--name", "n2", "--validity-days", "4000");
        assertThat(tooLong.exitCode()).isEqualTo(2);
        assertThat(tooLong.err()).contains("after the CA itself expires at");
        CliRun zero = run("cert", "init", "--dir", tmp.resolve("ca2").toString(), "--validity-days", "0");
        assertThat(zero.exitCode()).isEqualTo(2);
        assertThat(zero.err()).contains("validity-days=0 must be >= 1");
        CliRun badHost = run("cert", "issue", "--dir", dir, "--role", "node", "--name", "n3", "--host", "a b");
        assertThat(badHost.exitCode()).isEqualTo(2);
        assertThat(badHost.err()).contains("host=a b is neither an IP address nor a DNS name");

        CliRun noDir = run("cert", "issue", "--role", "node", "--name", "n1");
        assertThat(noDir.exitCode()).isEqualTo(2);
        assertThat(noDir.err()).contains("Missing required option: '--dir=DIR'");

        CliRun noFile = run("cert", "show", tmp.resolve("nope.crt").toString());
        assertThat(noFile.exitCode()).isEqualTo(1);
        assertThat(noFile.err()).contains("no such file");
    }

    @Test
    void keysNeverAppearInOutputOrHelp() throws IOException {
        String dir = ca();
        run("cert", "issue", "--dir", dir, "--role", "admin", "--name", "root-admin");
        Path key = Path.of(dir, "root-admin", "identity.key");
        CliRun showKey = run("cert", "show", key.toString());
        assertThat(showKey.exitCode()).isEqualTo(1);
        assertThat(showKey.err()).contains(key + " holds a private key, not a certificate");
        run("cert", "show", Path.of(dir, "ca.key").toString());
        run("cert", "show", Path.of(dir, "root-admin").toString(), "--json");
        run("cert", "issue", "--dir", dir, "--role", "admin", "--name", "root-admin");
        for (String[] help : new String[][] {{"cert", "--help"}, {"cert", "init", "--help"},
                {"cert", "issue", "--help"}, {"cert", "show", "--help"}}) {
            assertThat(run(help).exitCode()).isZero();
        }

        List<String> secrets = new ArrayList<>();
        for (Path keyFile : List.of(key, Path.of(dir, "ca.key"))) {
            String base64 = Files.readAllLines(keyFile).stream().filter(l -> !l.startsWith("-----"))
                    .reduce("", String::concat);
            // Any 12 characters of the key's base64 would be a leak; the first ones are a fixed DER header.
            for (int i = 40; i + 12 <= base64.length(); i += 6) {
                secrets.add(base64.substring(i, i + 12));
            }
        }
        String everything = String.join("\n", printed);
        assertThat(everything).doesNotContain("PRIVATE KEY");
        assertThat(secrets).allSatisfy(secret -> assertThat(everything).doesNotContain(secret));
    }

    @Test
    void helpExplainsEveryFlag() {
        CliRun issue = run("cert", "issue", "--help");
        assertThat(issue.out()).contains("--dir=DIR", "--role=ROLE", "--name=NAME", "--out=OUT", "--validity-days=N",
                "--host=H", "--force", "Default: DIR/NAME", "Default: 365", "0600");
        CliRun init = run("cert", "init", "--help");
        assertThat(init.out()).contains("--dir=DIR", "--validity-days=N", "Default: 3650", "Refuses", "ca.key");
        CliRun show = run("cert", "show", "--help");
        assertThat(show.out()).contains("PATH", "--json", "fingerprint");
        assertThat(run("--help").out()).contains("cert");
        try (Stream<String> lines = run("cert", "--help").out().lines()) {
            assertThat(lines.filter(l -> l.trim().matches("(init|issue|show) .*"))).hasSize(3);
        }
    }
}

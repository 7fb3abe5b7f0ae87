package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secure cluster of real processes, driven through the CLI as an operator would: servers refuse
 * to start open by accident, each role does what it may and is refused the rest, and no token or
 * key ever shows up in a log, an error or a help text.
 */
class SecureClusterCliTest {
    @TempDir
    Path tmp;

    @Test
    void aMasterOrNodeWithoutCredentialsRefusesToStartUnlessToldInsecure() {
        CliRun master = CliRun.of("master", "--data-dir", tmp.resolve("m").toString(), "--port", "0", "--bind", "127.0.0.1");
        assertThat(master.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(master.err()).contains("a master needs credentials", "--credentials DIR", "--insecure");
        assertThat(tmp.resolve("m")).doesNotExist();

        CliRun node = CliRun.of("node", "--master", "127.0.0.1:1", "--pool", tmp.resolve("pool").toString(), "--capacity", "8M",
                "--port", "0", "--bind", "127.0.0.1");
        assertThat(node.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(node.err()).contains("a node needs credentials", "--role node", "--insecure");
        assertThat(tmp.resolve("pool")).doesNotExist();
    }

    @Test
    void credentialsOfTheWrongRoleAreRefusedAtStart() {
        Path ca = tmp.resolve("ca");
        assertThat(CliRun.of("cert", "init", "--dir", ca.toString()).exitCode()).isZero();
        assertThat(CliRun.of("cert", "issue", "--dir", ca.toString(), "--role", "reader", "--name", "r1").exitCode()).isZero();
        CliRun master = CliRun.of("master", "--data-dir", tmp.resolve("m").toString(), "--port", "0", "--bind", "127.0.0.1",
                "--credentials", ca.resolve("r1").toString());
        assertThat(master.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(master.err()).contains("are for reader r1; a master needs a master certificate");
    }

    @Test
    void anInsecureServerSaysSoLoudly() throws Exception {
        try (ChaosCluster cluster = new ChaosCluster(tmp.resolve("cluster"), 1, "1M", "16M")) {
            assertThat(cluster.masterProcess().output()).contains("WARNING: master running INSECURE", "no TLS, no authentication");
            assertThat(cluster.node(0).process().output()).contains("WARNING: node running INSECURE");
        }
    }

    @Test
    void eachRoleDoesWhatItMayAndNoSecretIsEverPrinted() throws Exception {
        Path ca = tmp.resolve("ca");
        List<CliRun> runs = new ArrayList<>();
        runs.add(run(0, "cert", "init", "--dir", ca.toString()));
        runs.add(run(0, "cert", "issue", "--dir", ca.toString(), "--role", "writer", "--name", "importer"));
        runs.add(run(0, "cert", "token", "--dir", ca.toString(), "--role", "reader", "--name", "engine"));
        String token = Files.readString(ca.resolve("engine").resolve("token")).strip();
        assertThat(Files.readString(ca.resolve("tokens"))).contains("engine reader ").doesNotContain(token);
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));

        try (ChaosCluster cluster = ChaosCluster.secure(tmp.resolve("cluster"), ca, 2, "1M", "96M")) {
            String master = cluster.master();
            String writer = ca.resolve("importer").toString();
            String reader = ca.resolve("engine").toString();

            runs.add(run(0, "model", "import", "--store", master, "--credentials", writer, "--checkpoint-id", "tiny", "--model-id",
                    "chaos/model", "--source", checkpoint.dir().toString(), "--replicas", "2"));
            CliRun load = run(0, "load", "weightstore://tiny", "--store", master, "--credentials", reader, "--tp-size", "2",
                    "--all-ranks", "--digest");
            runs.add(load);
            runs.add(run(0, "model", "verify", "tiny", "--store", master, "--credentials", reader));

            CliRun anonymous = run(1, "model", "list", "--store", master);
            assertThat(anonymous.err()).contains("give --credentials");
            CliRun readerImports = run(1, "model", "import", "--store", master, "--credentials", reader, "--checkpoint-id", "other",
                    "--model-id", "chaos/model", "--source", checkpoint.dir().toString());
            assertThat(readerImports.err()).contains("engine (reader) may not");
            CliRun readerDeletes = run(1, "model", "delete", "tiny", "--store", master, "--credentials", reader);
            assertThat(readerDeletes.err()).contains("engine (reader) may not");
            runs.addAll(List.of(anonymous, readerImports, readerDeletes));
            runs.add(run(0, "model", "list", "--store", master, "--credentials", reader));

            // Room a delete frees while the writer's grants live is held back, and store status says whose it is.
            runs.add(run(0, "model", "delete", "tiny", "--store", master, "--credentials", writer));
            CliRun writersView = run(0, "store", "status", "--store", master, "--credentials", writer);
            assertThat(writersView.out()).containsPattern("held back: \\S+ \\S+ of what is used belongs to no object")
                    .contains("of it is yours to put into at once");
            CliRun readersView = run(0, "store", "status", "--store", master, "--credentials", reader);
            assertThat(readersView.out()).containsPattern("free again by \\d{4}-").doesNotContain("yours");
            CliRun readersJson = run(0, "store", "status", "--json", "--store", master, "--credentials", reader);
            assertThat(readersJson.out()).containsPattern("\"forCaller\" : 0,").containsPattern("\"forOthers\" : [1-9]")
                    .containsPattern("\"othersUntil\" : \"\\d{4}-");
            runs.addAll(List.of(writersView, readersView, readersJson));

            List<String> secrets = new ArrayList<>(List.of(token));
            try (Stream<Path> files = Files.walk(tmp)) {
                for (Path key : files.filter(p -> p.getFileName().toString().endsWith(".key")).toList()) {
                    secrets.add(pemBody(key));
                }
            }
            assertThat(secrets).hasSizeGreaterThan(4);
            List<String> printed = new ArrayList<>();
            runs.forEach(r -> printed.add(r.out() + r.err()));
            printed.add(cluster.masterProcess().output());
            printed.add(cluster.node(0).process().output());
            printed.add(cluster.node(1).process().output());
            for (String verb : List.of("master", "node", "serve", "load")) {
                printed.add(CliRun.of(verb, "--help").out());
            }
            printed.add(CliRun.of("cert", "token", "--help").out());
            for (String text : printed) {
                for (String secret : secrets) {
                    assertThat(text).doesNotContain(secret);
                }
            }
        }
    }

    private static CliRun run(int expectedExit, String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as("%s\nout: %s\nerr: %s", String.join(" ", args), run.out(), run.err()).isEqualTo(expectedExit);
        return run;
    }

    /** The base64 of a PEM key without its armour lines, a long unique string that must never be printed. */
    private static String pemBody(Path key) throws java.io.IOException {
        String pem = new String(Files.readAllBytes(key), StandardCharsets.US_ASCII);
        String body = pem.lines().filter(l -> !l.startsWith("-----")).reduce("", String::concat);
        return body.substring(0, Math.min(40, body.length()));
    }
}

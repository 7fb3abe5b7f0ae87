package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The systemd units under deploy/systemd: each runs the launcher the image ships with a verb and
 * flags that parse, with the example configuration file, as the real command line parses them;
 * the node may write where its pool is; and systemd's own checker, where the machine has it,
 * finds nothing to say about them.
 */
class SystemdUnitsTest {
    private static final Path DIR = Path.of("../deploy/systemd");
    private static final String LAUNCHER = "/usr/local/bin/weightstore";

    @TempDir
    Path tmp;

    /** One unit file: each key's values in order, by section. */
    private record Unit(String name, Map<String, Map<String, List<String>>> sections) {
        static Unit read(Path file) throws IOException {
            Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
            Map<String, List<String>> current = null;
            for (String line : Files.readAllLines(file)) {
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                if (trimmed.startsWith("[")) {
                    current = sections.computeIfAbsent(trimmed.substring(1, trimmed.length() - 1), s -> new LinkedHashMap<>());
                } else {
                    int eq = trimmed.indexOf('=');
                    current.computeIfAbsent(trimmed.substring(0, eq), k -> new ArrayList<>()).add(trimmed.substring(eq + 1));
                }
            }
            return new Unit(file.getFileName().toString(), sections);
        }

        String service(String key) {
            return value("Service", key);
        }

        String value(String section, String key) {
            List<String> values = sections.getOrDefault(section, Map.of()).getOrDefault(key, List.of());
            return values.isEmpty() ? null : values.getLast();
        }
    }

    private static List<Unit> units() throws IOException {
        return units(".service");
    }

    private static List<Unit> units(String suffix) throws IOException {
        List<Unit> units = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file : files.filter(f -> f.toString().endsWith(suffix)).sorted().toList()) {
                units.add(Unit.read(file));
            }
        }
        return units;
    }

    @Test
    void everyServerHasAUnitThatRunsItsVerbWithTheExampleConfiguration() throws Exception {
        List<Unit> units = units();
        assertThat(units).extracting(Unit::name).containsExactly("weightstore-gateway.service", "weightstore-master.service",
                "weightstore-node.service", "weightstore-serve.service");
        Path config = ExampleConfig.under(tmp);
        for (Unit unit : units) {
            List<String> words = List.of(unit.service("ExecStart").split("\\s+"));
            assertThat(words.getFirst()).as(unit.name()).isEqualTo(LAUNCHER);
            List<String> args = words.subList(1, words.size()).stream().map(w -> w.equals(ExampleConfig.INSTALLED) ? config.toString() : w)
                    .toList();
            assertThat(args).as("%s reads the configuration file", unit.name()).contains(config.toString());
            CommandFlags flags = CommandFlags.parse(WeightstoreCli.commandLine(), args);
            String verb = unit.name().substring("weightstore-".length(), unit.name().length() - ".service".length());
            assertThat(flags.verb()).as(unit.name()).containsExactly(verb);

            assertThat(unit.service("User")).as("%s runs unprivileged", unit.name()).isEqualTo("weightstore");
            assertThat(unit.service("NoNewPrivileges")).isEqualTo("yes");
            assertThat(unit.service("ProtectSystem")).isEqualTo("strict");
            assertThat(unit.service("RestartPreventExitStatus")).as("a usage error is not retried").isEqualTo(String.valueOf(ExitCodes.USAGE));
            assertThat(unit.sections().get("Install").get("WantedBy")).containsExactly("multi-user.target");
        }
    }

    /**
     * Under ProtectSystem=strict only a unit's state directories are writable: a home elsewhere (the user's, which the
     * README's useradd does not even create) failed serve's metadata cache and a master's RocksDB library at every start.
     */
    @Test
    void everyServersHomeIsOneOfItsStateDirectories() throws Exception {
        for (Unit unit : units()) {
            String environment = unit.sections().get("Service").getOrDefault("Environment", List.of()).stream()
                    .filter(e -> e.startsWith("WEIGHTSTORE_HOME=")).findFirst().orElse(null);
            assertThat(environment).as(unit.name() + " sets WEIGHTSTORE_HOME").isNotNull();
            String home = environment.substring("WEIGHTSTORE_HOME=".length());
            assertThat(List.of(unit.service("StateDirectory").split(" "))).as(unit.name() + " state directories")
                    .anySatisfy(dir -> assertThat(home).isEqualTo("%S/" + dir));
        }
    }

    @Test
    void theNodeMayWriteItsPoolAndSharesItsShm() throws Exception {
        Unit node = units().stream().filter(u -> u.name().equals("weightstore-node.service")).findFirst().orElseThrow();
        Path config = ExampleConfig.under(tmp);
        CommandFlags flags = CommandFlags.parse(WeightstoreCli.commandLine(), List.of("node", "--config", config.toString()));
        Path pool = Path.of(flags.text("--pool"));
        Path writable = Path.of(node.service("ReadWritePaths"));
        assertThat(pool.startsWith(writable)).as("pool %s under ReadWritePaths %s", pool, writable).isTrue();
        assertThat(node.service("ExecStartPre")).endsWith(" " + writable);
        assertThat(node.service("PrivateDevices")).as("a private /dev/shm would hide the pool from readers on the host").isNull();
    }

    @Test
    void theNodePullsInATmpfsInHugePagesForItsPool() throws Exception {
        Unit node = units().stream().filter(u -> u.name().equals("weightstore-node.service")).findFirst().orElseThrow();
        Path pools = Path.of(node.service("ReadWritePaths"));
        List<Unit> mounts = units(".mount");
        assertThat(mounts).extracting(Unit::name).containsExactly("dev-shm-weightstore.mount");
        Unit mount = mounts.getFirst();
        assertThat(mount.value("Mount", "Where")).isEqualTo(pools.toString());
        // systemd names a mount unit after its path, '/' as '-'.
        assertThat(mount.name()).isEqualTo(pools.toString().substring(1).replace('/', '-') + ".mount");
        assertThat(mount.value("Mount", "Type")).isEqualTo("tmpfs");
        assertThat(mount.value("Mount", "Options").split(",")).contains("huge=within_size", "mode=0700");
        // Wanted, not required: where the mount fails, the node still serves, from /dev/shm as it is.
        assertThat(node.value("Unit", "Wants").split("\\s+")).contains(mount.name());
        assertThat(node.value("Unit", "After").split("\\s+")).contains(mount.name());
        assertThat(node.value("Unit", "Requires")).isNull();
    }

    @Test
    void systemdFindsNothingToSayAboutThem() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        Path systemUnits = Path.of("/usr/lib/systemd/system");
        assumeTrue(Files.isExecutable(analyze) && Files.isDirectory(systemUnits), "systemd-analyze is not installed");
        // A root of its own: the units, the launcher and what they start, and the system's units they order against.
        Path root = tmp.resolve("root");
        Path unitDir = Files.createDirectories(root.resolve("etc/systemd/system"));
        run(List.of("cp", "-a", systemUnits.toString(), Files.createDirectories(root.resolve("usr/lib/systemd")).toString()));
        Files.createDirectories(root.resolve("usr/local/bin"));
        Files.copy(Path.of("src/main/jib" + LAUNCHER), root.resolve(LAUNCHER.substring(1)), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(root.resolve("usr/bin"));
        Files.copy(Path.of("/usr/bin/install"), root.resolve("usr/bin/install"), StandardCopyOption.COPY_ATTRIBUTES);
        List<String> command = new ArrayList<>(List.of(analyze.toString(), "verify", "--root=" + root));
        for (Unit unit : Stream.concat(units().stream(), units(".mount").stream()).toList()) {
            Files.copy(DIR.resolve(unit.name()), unitDir.resolve(unit.name()));
            command.add(unit.name());
        }
        assertThat(run(command)).as("systemd-analyze verify").isEmpty();
    }

    /** Runs {@code command} within a minute; returns what it printed, failing on a non-zero exit. */
    private String run(List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile(tmp, "out", ".txt");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(1, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("no end within a minute: " + command);
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("%s printed:%n%s", command, text).isZero();
        return text;
    }
}

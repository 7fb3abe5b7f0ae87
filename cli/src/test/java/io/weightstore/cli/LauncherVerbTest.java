package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launchers (the source tree's and the container image's) choose the JVM's flags by the verb,
 * which may come after {@code --config FILE}: run against a stand-in JDK whose java prints the
 * arguments it was given, in a scratch tree with a built CLI in place so that nothing is built.
 */
class LauncherVerbTest {
    private static final String VECTOR = "jdk.incubator.vector";

    @TempDir
    Path tmp;

    private Path jdk;

    @BeforeEach
    void standInJdk() throws IOException {
        jdk = tmp.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        executable(jdk.resolve("bin/javac"), "#!/bin/sh\nexit 0\n");
        executable(jdk.resolve("bin/java"), "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
    }

    @Test
    void theSourceTreesLauncherAddsTheVectorApiForAModelVerbAfterConfig() throws Exception {
        Path root = tmp.resolve("tree");
        Files.createDirectories(root.resolve("bin"));
        Files.copy(Path.of("../weightstore"), root.resolve("weightstore"));
        Files.copy(Path.of("../bin/jdk.sh"), root.resolve("bin/jdk.sh"));
        root.resolve("weightstore").toFile().setExecutable(true);
        Path target = Files.createDirectories(root.resolve("cli/target/lib"));
        Files.writeString(target.resolveSibling("weightstore-cli.jar"), "");
        Files.writeString(target.resolveSibling("weightstore.stamp"), "");

        assertThat(run(root.resolve("weightstore"), "--config", "x.yaml", "serve", "--help")).contains(VECTOR);
        assertThat(run(root.resolve("weightstore"), "--config=x.yaml", "generate", "--help")).contains(VECTOR);
        assertThat(run(root.resolve("weightstore"), "--config", "serve", "store", "ls")).doesNotContain(VECTOR);
    }

    @Test
    void theImagesLauncherAddsTheVectorApiForAModelVerbAfterConfig() throws Exception {
        Path app = Files.createDirectories(tmp.resolve("app/classpath"));
        Files.writeString(app.resolve("cli.jar"), "");
        Path launcher = Path.of("src/main/jib/usr/local/bin/weightstore");

        assertThat(run(launcher, "--config", "x.yaml", "serve", "--help")).contains("--add-modules=" + VECTOR);
        assertThat(run(launcher, "--config", "serve", "store", "ls")).noneMatch(a -> a.contains(VECTOR));
    }

    private List<String> run(Path launcher, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", jdk.toString());
        builder.environment().put("WEIGHTSTORE_APP", tmp.resolve("app").toString());
        builder.environment().put("WEIGHTSTORE_AOT_CACHE", "off");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}

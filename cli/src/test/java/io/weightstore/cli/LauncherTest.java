package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launchers, the source tree's and the container image's, run against a stand-in JDK whose java
 * prints the arguments it was given, in a scratch tree (for the source tree's) whose Maven is a stub.
 */
class LauncherTest {
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
        Path launcher = scratchTree();
        built("cli");

        assertThat(run(launcher, "--config", "x.yaml", "serve", "--help")).contains(VECTOR);
        assertThat(run(launcher, "--config=x.yaml", "generate", "--help")).contains(VECTOR);
        assertThat(run(launcher, "--config", "serve", "store", "ls")).doesNotContain(VECTOR);
    }

    /** A symlink on the PATH (/usr/local/bin/weightstore, say) runs the tree it points into, not the link's directory. */
    @Test
    void theSourceTreesLauncherRunsThroughASymlinkFromAnotherDirectory() throws Exception {
        Path launcher = scratchTree();
        built("cli");
        Path link = Files.createSymbolicLink(Files.createDirectories(tmp.resolve("elsewhere")).resolve("weightstore"), launcher);

        assertThat(run(link, "store", "ls")).contains("store", "ls");
    }

    @Test
    void twoLaunchersThatBuildDifferentModulesBuildOneAfterTheOther() throws Exception {
        // Both builds take the modules they depend on with them (-am): at once, they would write the same directories.
        Path launcher = scratchTree();
        Path builds = tmp.resolve("builds.log");
        executable(tmp.resolve("tree/mvnw"), """
                #!/bin/sh
                for arg in "$@"; do [ "$previous" = -pl ] && module=$arg; previous=$arg; done
                echo "start $module" >>"$BUILDS"
                sleep 1
                mkdir -p "$module/target/lib" && : >"$module/target/weightstore-$module.jar"
                echo "end $module" >>"$BUILDS"
                """);
        try (ExecutorService launchers = Executors.newFixedThreadPool(2)) {
            Future<List<String>> bench = launchers.submit(() -> run(launcher, Map.of("BUILDS", builds.toString()), "bench", "load"));
            Future<List<String>> cli = launchers.submit(() -> run(launcher, Map.of("BUILDS", builds.toString()), "--version"));
            bench.get();
            cli.get();
        }

        List<String> lines = Files.readAllLines(builds);
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0).substring("start ".length())).as(lines.toString()).isEqualTo(lines.get(1).substring("end ".length()));
        assertThat(lines.get(2).substring("start ".length())).as(lines.toString()).isEqualTo(lines.get(3).substring("end ".length()));
    }

    /** A copy of the source tree's launcher in a tree of its own, returned. */
    private Path scratchTree() throws IOException {
        Path root = tmp.resolve("tree");
        Files.createDirectories(root.resolve("bin"));
        Files.copy(Path.of("../bin/jdk.sh"), root.resolve("bin/jdk.sh"));
        Path launcher = Files.copy(Path.of("../weightstore"), root.resolve("weightstore"));
        launcher.toFile().setExecutable(true);
        return launcher;
    }

    /** {@code module} as a build leaves it in the scratch tree: nothing for the launcher to build. */
    private void built(String module) throws IOException {
        Path target = Files.createDirectories(tmp.resolve("tree").resolve(module).resolve("target/lib"));
        Files.writeString(target.resolveSibling("weightstore-" + module + ".jar"), "");
        Files.writeString(target.resolveSibling("weightstore.stamp"), "");
    }

    @Test
    void aCommandThatNamesAClusterIsTrainedForOnAClusterAndTheOthersOnTheEmbeddedStore() throws Exception {
        Path launcher = scratchTree();
        built("cli");
        Map<String, String> cacheOn = Map.of("WEIGHTSTORE_AOT_CACHE", "on");

        run(launcher, cacheOn, "store", "status", "--store", "h:7070");
        run(launcher, cacheOn, "generate", "--store=h:7070", "--model", "weightstore://m", "--prompt", "p");
        run(launcher, cacheOn, "model", "list");
        run(launcher, cacheOn, "serve", "--model", "weightstore://m");

        // The stand-in java writes no cache; the launcher's log of each attempt holds the training run it started.
        assertThat(trainingRun("weightstore-cluster")).containsSubsequence("cluster-training", "--no-generate");
        assertThat(trainingRun("weightstore-cluster-jlama")).contains("cluster-training", VECTOR).doesNotContain("--no-generate");
        assertThat(trainingRun("weightstore")).containsSubsequence("quickstart", "--no-generate").doesNotContain("cluster-training");
        assertThat(trainingRun("weightstore-jlama")).contains("quickstart", VECTOR).doesNotContain("--no-generate", "cluster-training");
    }

    /** The arguments the stand-in java was given by the launcher's attempt to write the start-up cache {@code name}. */
    private List<String> trainingRun(String name) throws IOException {
        return Files.readAllLines(tmp.resolve("tree/cli/target/" + name + ".aot.log"));
    }

    @Test
    void theImagesLauncherTakesTheClusterCacheForACommandThatNamesACluster() throws Exception {
        Path app = Files.createDirectories(tmp.resolve("app/classpath"));
        Files.writeString(app.resolve("cli.jar"), "");
        for (String cache : List.of("weightstore", "weightstore-jlama", "weightstore-cluster", "weightstore-cluster-jlama")) {
            Files.writeString(app.resolveSibling(cache + ".aot"), "");
        }
        Path launcher = Path.of("src/main/jib/usr/local/bin/weightstore");
        Map<String, String> cacheOn = Map.of("WEIGHTSTORE_AOT_CACHE", "on");

        assertThat(run(launcher, cacheOn, "store", "status", "--store", "h:7070")).contains(aotCache("weightstore-cluster"));
        assertThat(run(launcher, Map.of("WEIGHTSTORE_AOT_CACHE", "on", "WEIGHTSTORE_MASTER", "h:7070"), "model", "list"))
                .contains(aotCache("weightstore-cluster"));
        assertThat(run(launcher, cacheOn, "node", "--pool", "/p")).contains(aotCache("weightstore-cluster"));
        assertThat(run(launcher, cacheOn, "serve", "--config=c.yaml", "--model", "weightstore://m"))
                .contains(aotCache("weightstore-cluster-jlama"));
        assertThat(run(launcher, cacheOn, "model", "list")).contains(aotCache("weightstore"));
        assertThat(run(launcher, cacheOn, "generate", "--model", "weightstore://m")).contains(aotCache("weightstore-jlama"));
    }

    private String aotCache(String name) {
        return "-XX:AOTCache=" + tmp.resolve("app").resolve(name + ".aot");
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
        return run(launcher, Map.of(), args);
    }

    private List<String> run(Path launcher, Map<String, String> environment, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("WEIGHTSTORE_"));
        builder.environment().put("JAVA_HOME", jdk.toString());
        builder.environment().put("WEIGHTSTORE_APP", tmp.resolve("app").toString());
        builder.environment().put("WEIGHTSTORE_AOT_CACHE", "off");
        builder.environment().putAll(environment);
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

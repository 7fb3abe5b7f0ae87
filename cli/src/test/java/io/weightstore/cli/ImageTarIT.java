package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image that {@code -Pimage} builds: its tar holds the launcher, the runtime and the
 * CLI in layers, and its configuration runs the launcher and exposes the ports the servers really
 * use. Where this runs as root with {@code unshare}, the image's file system is also run in a chroot
 * with its own /proc, as a container runtime would: the launcher starts the CLI on the image's own
 * runtime and C library, and an import into the embedded store and its verification pass.
 */
class ImageTarIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path work;
    private static JsonNode config;
    private static List<String> files;
    private static Path rootfs;

    @BeforeAll
    static void unpack() throws Exception {
        String built = System.getProperty("weightstore.image.tar");
        // Only the image profile builds the tar and names it here; a run of every test class by pattern has none to check.
        assumeTrue(built != null, "the image is checked by ./weightstore image (-Pimage), which builds it first");
        Path tar = Path.of(built);
        assertThat(tar).as("the image tar that -Pimage built").isRegularFile();
        Path image = Files.createDirectories(work.resolve("image"));
        run(List.of("tar", "-xf", tar.toString(), "-C", image.toString()));
        JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
        assertThat(manifest.get("RepoTags").get(0).asText()).startsWith("weightstore:");
        config = JSON.readTree(image.resolve(manifest.get("Config").asText()).toFile());
        rootfs = Files.createDirectories(work.resolve("rootfs"));
        files = new ArrayList<>();
        for (JsonNode layer : manifest.get("Layers")) {
            Path blob = image.resolve(layer.asText());
            files.addAll(run(List.of("tar", "-tvzf", blob.toString())));
            run(List.of("tar", "-xzf", blob.toString(), "-C", rootfs.toString()));
        }
    }

    @Test
    void theLayersHoldTheLauncherTheRuntimeAndTheCli() {
        assertThat(files).anyMatch(line -> line.startsWith("-rwxr-xr-x") && line.endsWith(" usr/local/bin/weightstore"))
                .anyMatch(line -> line.startsWith("-rwxr-xr-x") && line.endsWith(" opt/java/bin/java"))
                .anyMatch(line -> line.endsWith(" opt/java/lib/server/libjvm.so"))
                .anyMatch(line -> line.endsWith(" lib64/ld-linux-x86-64.so.2"))
                .anyMatch(line -> line.endsWith(" bin/sh"))
                .anyMatch(line -> line.endsWith(" app/classpath/weightstore-cli.jar"))
                .anyMatch(line -> line.matches(".* app/libs/weightstore-store-.*\\.jar"))
                .anyMatch(line -> line.matches(".* app/libs/rocksdbjni-.*\\.jar"))
                .anyMatch(line -> line.startsWith("drwxrwxrwx") && line.endsWith(" var/lib/weightstore/"));
        assertThat(config.at("/rootfs/diff_ids")).as("the launcher, the runtime and the CLI come in several layers").hasSizeGreaterThan(2);
    }

    @Test
    void theConfigurationRunsTheLauncherAsAnUnprivilegedUserAndExposesTheServersPorts() {
        JsonNode container = config.get("config");
        assertThat(container.get("Entrypoint")).extracting(JsonNode::asText).containsExactly("/usr/local/bin/weightstore");
        assertThat(container.get("User").asText()).isEqualTo("65532:65532");
        assertThat(container.get("Env")).extracting(JsonNode::asText).contains("JAVA_HOME=/opt/java",
                "WEIGHTSTORE_HOME=/var/lib/weightstore");
        List<String> ports = new ArrayList<>();
        container.get("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        for (String verb : List.of("master", "node", "gateway", "serve")) {
            assertThat(ports).contains(CommandFlags.defaultOf(verb, "--port") + "/tcp");
        }
    }

    @Test
    void theImageRunsItsCliOnItsOwnRuntime() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))
                && Files.isExecutable(Path.of("/usr/sbin/chroot")), "running the image needs root, unshare and chroot");
        assertThat(inImage("--version")).anyMatch(line -> line.startsWith("weightstore ") && line.contains("Java 25"));
        inImage("synth", "--out", "/tmp/model", "--size", "1M");
        assertThat(String.join("\n", inImage("model", "import", "--source", "/tmp/model", "--checkpoint-id", "m", "--model-id",
                "org/m"))).contains("imported m");
        assertThat(inImage("model", "verify", "m")).anyMatch(line -> line.startsWith("m: OK"));
    }

    @Test
    void theImageStartsItsJvmFromTheStartUpCacheItShips() throws Exception {
        // The build writes the cache where it can run the image, as this test does.
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))
                && Files.isExecutable(Path.of("/usr/sbin/chroot")), "running the image needs root, unshare and chroot");
        assertThat(files).anyMatch(line -> line.endsWith(" app/weightstore.aot"))
                .anyMatch(line -> line.endsWith(" app/weightstore-jlama.aot"))
                .anyMatch(line -> line.endsWith(" app/weightstore-cluster.aot"))
                .anyMatch(line -> line.endsWith(" app/weightstore-cluster-jlama.aot"));
        // AOTMode=on fails a start that cannot take the cache: its jars, their times and their order are the image's.
        assertThat(inImage(List.of("JDK_JAVA_OPTIONS=-XX:AOTMode=on"), "--version"))
                .anyMatch(line -> line.startsWith("weightstore ") && line.contains("Java 25"));
        // The Jlama verbs' cache, written with the Vector API's module added, as they start.
        assertThat(inImage(List.of("JDK_JAVA_OPTIONS=-XX:AOTMode=on"), "generate", "--help"))
                .anyMatch(line -> line.contains("--model"));
        // The caches of the commands that name a cluster, trained on one the build started on loopback.
        assertThat(inImage(List.of("JDK_JAVA_OPTIONS=-XX:AOTMode=on"), "store", "status", "--store", "127.0.0.1:7070", "--help"))
                .anyMatch(line -> line.contains("--store"));
        assertThat(inImage(List.of("JDK_JAVA_OPTIONS=-XX:AOTMode=on"), "serve", "--store", "127.0.0.1:7070", "--help"))
                .anyMatch(line -> line.contains("--model"));
    }

    private static List<String> inImage(String... args) throws Exception {
        return inImage(List.of(), args);
    }

    /**
     * Runs the image's entrypoint with {@code args} as its user, in a chroot with a /proc and a root mount of its own,
     * with {@code environment} (NAME=VALUE) beside the image's own.
     */
    private static List<String> inImage(List<String> environment, String... args) throws Exception {
        Files.createDirectories(rootfs.resolve("proc"));
        String root = rootfs.toString();
        List<String> command = new ArrayList<>(List.of("env", "-i", "JAVA_HOME=/opt/java", "WEIGHTSTORE_HOME=/var/lib/weightstore"));
        command.addAll(environment);
        command.addAll(List.of("unshare", "--fork", "--pid", "--mount", "sh", "-c",
                "mount --bind \"$0\" \"$0\" && mount -t proc proc \"$0/proc\" && exec chroot --userspec=65532:65532 \"$0\" "
                        + "/usr/local/bin/weightstore \"$@\"",
                root));
        command.addAll(List.of(args));
        return run(command);
    }

    /** Runs {@code command} to its end within two minutes, and returns its output lines; a failure names the command. */
    private static List<String> run(List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile(work, "out", ".txt");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("no end within two minutes: " + command);
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("exit code of %s, which printed:%n%s", command, text).isZero();
        return text.lines().toList();
    }
}

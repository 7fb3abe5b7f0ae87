package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.jlama.JlamaModels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Node client ({@code src/test/node}, openai 6.x from the npm registry) against
 * the server, run with Node's own test runner. {@code npm ci} runs only when {@code node_modules} is
 * missing or was installed from another lockfile.
 */
class OpenAiNodeClientTest {
    private static final Path PROJECT = Path.of(System.getProperty("basedir", ".")).resolve("src/test/node");
    private static final Path STAMP = PROJECT.resolve("node_modules/.weightstore-lock.sha256");
    private static final String KEY = "sk-node-test-key";

    @TempDir
    Path tmp;

    @Test
    void theOfficialClientPassesItsTests() throws Exception {
        requireTool("node");
        requireTool("npm");
        installClient();
        try (JlamaModels.Loaded loaded = TinyModel.load(tmp.resolve("model"))) {
            ServedModel served = TinyModel.served(loaded);
            try (OpenAiServer server = TinyModel.serve(served, new ServeConfig("127.0.0.1", 0, 1, 8, Optional.of(ApiKey.of(KEY))))) {
                Run run = run(List.of("node", "--test", "openai.test.mjs"), Map.of(
                        "WEIGHTSTORE_BASE_URL", "http://127.0.0.1:" + server.port() + "/v1",
                        "WEIGHTSTORE_API_KEY", KEY,
                        "WEIGHTSTORE_MODEL", TinyModel.NAME,
                        "WEIGHTSTORE_CONTEXT", Integer.toString(served.contextLength())), 180);
                assertThat(run.exitCode()).as("node --test failed:%n%s", run.output()).isZero();
                assertThat(run.output()).contains("# fail 0").doesNotContain("# pass 0");
            }
        }
    }

    private static void requireTool(String tool) throws InterruptedException {
        String problem;
        try {
            Run version = run(List.of(tool, "--version"), Map.of(), 60);
            if (version.exitCode() == 0) {
                return;
            }
            problem = "'" + tool + " --version' exited with " + version.exitCode() + ": " + version.output().strip();
        } catch (IOException e) {
            problem = tool + " is not on the PATH (" + e.getMessage() + ")";
        }
        throw new AssertionError("the OpenAI client tests need Node.js 20 or newer with npm: " + problem
                + ". Install them (on Debian: apt-get install nodejs npm) and run the tests again.");
    }

    /** {@code npm ci}, unless node_modules holds what the lockfile says. */
    private static void installClient() throws Exception {
        String lock = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                Files.readAllBytes(PROJECT.resolve("package-lock.json"))));
        if (Files.isRegularFile(STAMP) && Files.readString(STAMP).strip().equals(lock)) {
            return;
        }
        Run install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), 300);
        assertThat(install.exitCode()).as("npm ci failed in %s:%n%s", PROJECT, install.output()).isZero();
        Files.writeString(STAMP, lock + "\n");
    }

    private record Run(int exitCode, String output) {}

    private static Run run(List<String> command, Map<String, String> environment, int timeoutSeconds)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("weightstore-node", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(PROJECT.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            try {
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    throw new AssertionError(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s:\n"
                            + Files.readString(log, StandardCharsets.UTF_8));
                }
            } finally {
                // Never leave node or npm behind, whatever happened.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}

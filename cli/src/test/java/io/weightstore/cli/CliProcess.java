package io.weightstore.cli;

import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The weightstore command in its own JVM, as a user on another terminal or machine would run it. */
final class CliProcess {
    private final Process process;
    private final Path log;

    private CliProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static CliProcess start(Path log, String... args) throws IOException {
        return start(log, Map.of(), args);
    }

    /** As {@link #start(Path, String...)}, with extra environment variables. */
    static CliProcess start(Path log, Map<String, String> environment, String... args) throws IOException {
        return start(log, environment, List.of(), args);
    }

    /**
     * As {@link #start(Path, Map, String...)}, with {@code wrapper} run first and handed the java command
     * line (a wrapper that execs it keeps the pid, so signals still reach the JVM).
     */
    static CliProcess start(Path log, Map<String, String> environment, List<String> wrapper, String... args) throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-exports",
                "java.base/sun.nio.ch=ALL-UNNAMED"));
        // As the launcher does: the verbs that run a model need Jlama's incubating Vector API.
        if (args.length > 0 && Set.of("generate", "serve", "quickstart").contains(args[0])) {
            command.addAll(List.of("--add-modules", "jdk.incubator.vector"));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), WeightstoreCli.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // Only what the test says picks the store: nothing inherited from whoever runs the tests, and the
        // embedded store, if any, in the test's home rather than the user's.
        builder.environment().keySet().removeIf(name -> name.startsWith("WEIGHTSTORE_"));
        builder.environment().put(WeightstoreHome.ENV, WeightstoreHome.resolve().toString());
        builder.environment().putAll(environment);
        Process process = builder.start();
        return new CliProcess(process, log);
    }

    int await() throws InterruptedException {
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("weightstore did not finish in 120 s");
        }
        return process.exitValue();
    }

    /** SIGTERM, as Ctrl-C or a service manager would stop it. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("weightstore did not stop in 30 s after SIGTERM");
        }
    }

    /** SIGKILL, as a crash or an OOM killer would end it. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends a signal by name (STOP, CONT, ...), as {@code kill -NAME} would. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}

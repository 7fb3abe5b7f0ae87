package io.weightstore.store;

import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.ha.GroupSettings;
import io.weightstore.store.ha.MasterGroup;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.master.RocksNativeLibrary;
import io.weightstore.store.security.MasterSecurity;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second JVM for tests that need another process: a master to kill with SIGKILL, a holder of
 * the embedded store, or a node (with its master) whose limits a test lowers. It prints "READY &lt;detail&gt;" once serving, then waits to be killed.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final String detail;

    private ChildProcess(Process process, String detail) {
        this.process = process;
        this.detail = detail;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "master" -> {
                MasterServer master = MasterServer.start(Path.of(args[1]), TestCluster.config(), "127.0.0.1",
                        Integer.parseInt(args[2]), MasterSecurity.insecure());
                System.out.println("READY " + master.port());
            }
            case "group-master" -> {
                MasterGroup master = MasterGroup.start(GroupSettings.of(args[1], args[2]), TestCluster.config(), "127.0.0.1", 0, MasterSecurity.insecure());
                System.out.println("READY " + master.port());
            }
            case "node" -> {
                loadClassPathUpFront();
                TestCluster cluster = new TestCluster(Path.of(args[1]), 1);
                System.out.println("READY " + cluster.node(0).port());
            }
            case "hold-embedded" -> {
                EmbeddedStore.open(Path.of(args[1]), 16 << 20, ClientOptions.defaults());
                System.out.println("READY " + ProcessHandle.current().pid());
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * Loads every class the class path holds in directories (the build's own), as a node started from
     * its jars has them at hand: each would otherwise take a descriptor to load, and one that fails to
     * load while a test holds the node out of descriptors fails for good, ending the thread that needed it.
     * The jars are opened too: a search for what no entry holds opens each on the way.
     */
    private static void loadClassPathUpFront() throws IOException, ClassNotFoundException {
        ClassLoader loader = ChildProcess.class.getClassLoader();
        loader.getResource("weightstore/in-no-entry-of-the-class-path");
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path root = Path.of(entry);
            if (!Files.isDirectory(root)) {
                continue;
            }
            List<String> names;
            try (Stream<Path> files = Files.walk(root)) {
                names = files.map(root::relativize).map(Path::toString).filter(name -> name.endsWith(".class") && !name.contains("-"))
                        .map(name -> name.substring(0, name.length() - ".class".length()).replace(File.separatorChar, '.')).toList();
            }
            for (String name : names) {
                Class.forName(name, false, loader);
            }
        }
    }

    static ChildProcess start(String... args) throws IOException {
        return start(ProcessBuilder.Redirect.DISCARD, args);
    }

    /** As {@link #start(String...)}, with the child's log (stderr) going to {@code log}. */
    static ChildProcess start(ProcessBuilder.Redirect log, String... args) throws IOException {
        // INFO in the child's log: its elections and take-overs tell why a test found no leader.
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info"));
        // The test JVM's kept RocksDB library: a child loading its own would leave it in /tmp when killed.
        String nativeDir = System.getProperty(RocksNativeLibrary.DIRECTORY_PROPERTY);
        if (nativeDir != null) {
            command.add("-D" + RocksNativeLibrary.DIRECTORY_PROPERTY + "=" + nativeDir);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChildProcess.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(log).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("READY ")) {
                return new ChildProcess(process, line.substring(6));
            }
        }
        process.destroyForcibly();
        throw new IOException("child process exited before it was ready: " + command);
    }

    String detail() {
        return detail;
    }

    long pid() {
        return process.pid();
    }

    /** SIGSTOP or SIGCONT: a process frozen as by a long pause or a partition, then thawed. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code of a process that ended: 128 + the signal's number when a signal ended it (137: SIGKILL). */
    int exitValue() {
        return process.exitValue();
    }

    /** SIGKILL: no shutdown hooks, no flushing, as a crash or an OOM killer would end it. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}

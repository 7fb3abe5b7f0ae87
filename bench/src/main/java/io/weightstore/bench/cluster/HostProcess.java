package io.weightstore.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A process started on a {@link Host}; closing it stops it. */
public final class HostProcess implements AutoCloseable {
    private final Host host;
    private final Process process;
    private final Path log;

    HostProcess(Host host, Process process, Path log) {
        this.host = host;
        this.process = process;
        this.log = log;
    }

    /** The process id (the script execs into the command, so this is the command's own pid). */
    public long pid() {
        return process.pid();
    }

    public Host host() {
        return host;
    }

    /** Where its stdout and stderr go. */
    public Path log() {
        return log;
    }

    public String output() throws IOException {
        return Files.readString(log);
    }

    /** The last lines of its output, for an error message. */
    public String tail() throws IOException {
        return tail(output());
    }

    /** The last 15 lines of a process's output. */
    static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the end and returns the exit status. */
    public int waitFor(Duration timeout) throws InterruptedException, TimeoutException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new TimeoutException(this + " still runs after " + timeout);
        }
        return process.exitValue();
    }

    /** SIGTERM, then SIGKILL after 5 s; its descendants too. A frozen host's process dies of the SIGKILL. */
    public void stop() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "process " + pid() + " on " + host;
    }
}

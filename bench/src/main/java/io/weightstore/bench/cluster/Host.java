package io.weightstore.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/** One emulated host of a {@link HostBed}: an address, a shaped NIC, and the processes started on it. */
public final class Host {
    private final HostBed bed;
    private final int index;
    private final String address;
    private final String device;
    private final long holderPid;

    Host(HostBed bed, int index, String address, String device, long holderPid) {
        this.bed = bed;
        this.index = index;
        this.address = address;
        this.device = device;
        this.holderPid = holderPid;
    }

    public int index() {
        return index;
    }

    /** This host's address on the bed's subnet. */
    public String address() {
        return address;
    }

    /**
     * Starts {@code command} on this host, in the current directory, with stdout and stderr appended
     * to {@code log}. It sees this host's network only, and this host's tmpfs at {@link HostBed#privateDir()}.
     */
    public HostProcess start(Path log, List<String> command) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(bed.execCommand(index, command))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new HostProcess(this, process, log);
    }

    public HostProcess start(Path log, String... command) throws IOException {
        return start(log, List.of(command));
    }

    /**
     * Starts a server on this host and returns once it listens on {@code port}. If it exits first, or
     * does not listen within {@code timeout}, it is stopped and the error gives the end of its log.
     */
    public HostProcess startListening(Path log, int port, Duration timeout, List<String> command)
            throws IOException, InterruptedException, TimeoutException {
        HostProcess process = start(log, command);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!listening(port)) {
            if (!process.isAlive()) {
                throw new IOException(command.getFirst() + " on " + this + " exited: " + process.tail());
            }
            if (System.nanoTime() > deadline) {
                process.stop();
                throw new TimeoutException(process + " does not listen on port " + port + " after " + timeout.toSeconds() + " s: "
                        + process.tail());
            }
            Thread.sleep(50);
        }
        return process;
    }

    /** Runs {@code command} on this host to its end and returns its exit status and output (stdout and stderr). */
    public Completed run(Duration timeout, List<String> command) throws IOException, InterruptedException, TimeoutException {
        Path log = Files.createTempFile("weightstore-hostbed-run-", ".log");
        try (HostProcess process = start(log, command)) {
            int exit = process.waitFor(timeout);
            return new Completed(exit, Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    public Completed run(Duration timeout, String... command) throws IOException, InterruptedException, TimeoutException {
        return run(timeout, List.of(command));
    }

    /** A finished command: its exit status and its output. */
    public record Completed(int exitCode, String output) {}

    /** Bytes this host's NIC has sent since the bed was made (Ethernet frames, headers included). */
    public long txBytes() throws IOException {
        return counter("tx_bytes");
    }

    /** Bytes this host's NIC has received since the bed was made (Ethernet frames, headers included). */
    public long rxBytes() throws IOException {
        return counter("rx_bytes");
    }

    private long counter(String name) throws IOException {
        // The holder's mount namespace has this host's /sys: no process to start for a reading.
        return Long.parseLong(Files.readString(
                Path.of("/proc/" + holderPid + "/root/sys/class/net/" + device + "/statistics/" + name)).strip());
    }

    /** Whether a TCP socket listens on {@code port} in this host's network namespace. */
    public boolean listening(int port) throws IOException {
        String local = String.format(Locale.ROOT, ":%04X ", port);
        for (String table : List.of("tcp", "tcp6")) {
            Path path = Path.of("/proc/" + holderPid + "/net/" + table);
            if (!Files.exists(path)) {
                continue;
            }
            for (String line : Files.readAllLines(path)) {
                String[] f = line.trim().split("\\s+");
                // f[1] local address:port, f[3] state; 0A is LISTEN.
                if (f.length > 3 && (f[1] + " ").contains(local) && f[3].equals("0A")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Takes this host's link down at the bridge, as if its cable were pulled: its packets and packets to it are lost. */
    public void partition() {
        bed.hostCommand("partition", index);
    }

    /** Brings this host's link back up. */
    public void heal() {
        bed.hostCommand("heal", index);
    }

    /** Stops (SIGSTOP) every process on this host; the kernel still answers for its sockets. */
    public void freeze() {
        bed.hostCommand("freeze", index);
    }

    /** Continues (SIGCONT) every process on this host. */
    public void thaw() {
        bed.hostCommand("thaw", index);
    }

    long holderPid() {
        return holderPid;
    }

    @Override
    public String toString() {
        return "host " + index + " (" + address + ")";
    }
}

package io.weightstore.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Emulated hosts on this machine: each host a network namespace with one NIC shaped by {@code tc},
 * all on a bridge in a namespace of its own, each with a private tmpfs for its files. Drives
 * {@code bench/hostbed/hostbed.sh} (packaged with these classes), which documents the mechanics.
 *
 * <pre>{@code
 * try (HostBed bed = HostBed.create(HostBed.Options.hosts(3).withRate("200mbit"))) {
 *     HostProcess server = bed.host(1).start(log, "java", "-cp", cp, "Server", bed.host(1).address());
 *     bed.host(1).partition();
 *     ...
 * } // every process on the bed is killed, every namespace removed
 * }</pre>
 *
 * The bed is also removed when this JVM exits (a shutdown hook) or dies (the script's watchdog polls
 * this process), and the next bed removes whatever a crash left.
 */
public final class HostBed implements AutoCloseable {
    /** The script's exit status when a bed cannot be made here (and {@code bench cluster}'s). */
    public static final int EXIT_UNAVAILABLE = 77;

    /**
     * @param hosts how many hosts
     * @param rate each NIC's rate in each direction, {@code NUM[k|m|g]bit} or {@code none}
     * @param prefix names of everything the bed creates: {@code wsbed} and up to 4 of {@code [a-z0-9]}
     * @param subnet the test subnet; host i gets its (i+1)-th address
     * @param latencyMillis one-way delay to add, in steps of a microsecond; refused (with the reason) on kernels without netem
     * @param tmpfsSize the limit of each host's private tmpfs
     */
    public record Options(int hosts, String rate, String prefix, String subnet, double latencyMillis, String tmpfsSize) {
        public Options {
            if (!(latencyMillis >= 0) || Math.rint(latencyMillis * 1000) != latencyMillis * 1000) {
                throw new IllegalArgumentException("latency must be >= 0 ms in steps of 0.001 ms, found " + latencyMillis);
            }
        }

        public static Options hosts(int hosts) {
            return new Options(hosts, "1gbit", randomPrefix(), "10.213.0.0/24", 0, "4g");
        }

        public Options withRate(String value) {
            return new Options(hosts, value, prefix, subnet, latencyMillis, tmpfsSize);
        }

        public Options withPrefix(String value) {
            return new Options(hosts, rate, value, subnet, latencyMillis, tmpfsSize);
        }

        public Options withSubnet(String value) {
            return new Options(hosts, rate, prefix, value, latencyMillis, tmpfsSize);
        }

        public Options withLatencyMillis(double value) {
            return new Options(hosts, rate, prefix, subnet, value, tmpfsSize);
        }

        public Options withTmpfsSize(String value) {
            return new Options(hosts, rate, prefix, subnet, latencyMillis, value);
        }
    }

    private final Path script;
    private final String prefix;
    private final long rateBitsPerSecond;
    private final Path privateDir;
    private final List<Host> hosts;
    private final Set<String> netnsIds;
    private final Thread shutdownHook;
    private boolean closed;

    private HostBed(Path script, String prefix, Map<String, String> info) throws IOException {
        this.script = script;
        this.prefix = prefix;
        this.rateBitsPerSecond = Long.parseLong(info.get("rate_bps"));
        this.privateDir = Path.of(info.get("private"));
        int n = Integer.parseInt(info.get("hosts"));
        List<Host> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String key = "host." + i + ".";
            list.add(new Host(this, i, info.get(key + "addr"), info.get(key + "dev"), Long.parseLong(info.get(key + "holder"))));
        }
        this.hosts = List.copyOf(list);
        Set<String> ids = new java.util.HashSet<>();
        ids.add(netnsId(Long.parseLong(info.get("switch_holder"))));
        for (Host host : hosts) {
            ids.add(netnsId(host.holderPid()));
        }
        this.netnsIds = Set.copyOf(ids);
        this.shutdownHook = Thread.ofPlatform().unstarted(this::close);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Creates the bed (removing leftovers of an earlier run of the same prefix first).
     *
     * @throws HostBedUnavailableException when a bed cannot be made on this machine, with the reason
     * @throws IOException when making it failed otherwise, or an option cannot be honoured here (a latency without netem)
     */
    public static HostBed create(Options options) throws IOException, HostBedUnavailableException {
        Path script = script();
        List<String> up = new ArrayList<>(List.of("up", "--hosts", Integer.toString(options.hosts()), "--rate", options.rate(),
                "--subnet", options.subnet(), "--latency", BigDecimal.valueOf(options.latencyMillis()).stripTrailingZeros().toPlainString(), "--tmpfs-size",
                options.tmpfsSize(), "--owner", Long.toString(ProcessHandle.current().pid())));
        Result result = run(script, options.prefix(), up);
        if (result.exitCode() == EXIT_UNAVAILABLE) {
            throw new HostBedUnavailableException(message(result.error()).replaceFirst("^cannot make a host bed here: ", ""));
        }
        if (result.exitCode() != 0) {
            throw new IOException("hostbed up failed (exit " + result.exitCode() + "): " + message(result.error()));
        }
        try {
            return new HostBed(script, options.prefix(), parse(result.output()));
        } catch (IOException | RuntimeException e) {
            run(script, options.prefix(), List.of("down"));
            throw e;
        }
    }

    public Host host(int index) {
        return hosts.get(index);
    }

    public List<Host> hosts() {
        return hosts;
    }

    public int size() {
        return hosts.size();
    }

    public String prefix() {
        return prefix;
    }

    /** Each NIC's shaped rate, in each direction; 0 when not shaped. */
    public long rateBitsPerSecond() {
        return rateBitsPerSecond;
    }

    /** The directory where each host (and only that host) sees its own tmpfs; the same path on every host. */
    public Path privateDir() {
        return privateDir;
    }

    /** Kills every process on the bed and removes it. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Result result = run(script, prefix, List.of("down"));
            if (result.exitCode() != 0) {
                System.err.println("hostbed down failed (exit " + result.exitCode() + "): " + message(result.error()));
            }
        } catch (IOException e) {
            System.err.println("hostbed down failed: " + e.getMessage());
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Called from the hook itself.
        }
    }

    /**
     * What remains of this bed on the machine: namespaces or links named with its prefix, its state
     * directory, and processes still in one of its network namespaces. Empty after {@link #close()}.
     */
    public List<String> leftovers() throws IOException {
        List<String> found = new ArrayList<>();
        String namePrefix = prefix + "-";
        for (String line : command("ip", "netns", "list").lines().toList()) {
            if (line.startsWith(namePrefix)) {
                found.add("network namespace " + line.split(" ")[0]);
            }
        }
        for (String line : command("ip", "-o", "link", "show").lines().toList()) {
            String[] fields = line.split(": ");
            if (fields.length > 1 && fields[1].startsWith(namePrefix)) {
                found.add("link " + fields[1]);
            }
        }
        Path state = privateDir.getParent();
        if (Files.exists(state)) {
            found.add("state directory " + state);
        }
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                try {
                    String ns = Files.readSymbolicLink(proc.resolve("ns/net")).toString();
                    if (netnsIds.contains(ns)) {
                        found.add("process " + proc.getFileName() + " (" + Files.readString(proc.resolve("comm")).strip() + ")");
                    }
                } catch (IOException | UncheckedIOException gone) {
                    // Exited meanwhile, or not ours to read.
                }
            }
        }
        return found;
    }

    // ---- the script

    /** Runs a script command that acts on one host (partition, heal, freeze, thaw). */
    void hostCommand(String command, int host) {
        try {
            Result result = run(script, prefix, List.of(command, Integer.toString(host)));
            if (result.exitCode() != 0) {
                throw new IllegalStateException("hostbed " + command + " " + host + " failed: " + message(result.error()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The command line that runs {@code command} on a host, through the script's {@code exec}. */
    List<String> execCommand(int host, List<String> command) {
        List<String> line = new ArrayList<>(List.of("bash", script.toString(), "--prefix", prefix, "exec", Integer.toString(host)));
        line.addAll(command);
        return line;
    }

    record Result(int exitCode, String output, String error) {}

    private static Result run(Path script, String prefix, List<String> args) throws IOException {
        List<String> line = new ArrayList<>(List.of("bash", script.toString(), "--prefix", prefix));
        line.addAll(args);
        Process process = new ProcessBuilder(line).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        CompletableFuture<String> error = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        String output = readAll(process.getInputStream());
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("hostbed " + args.getFirst() + " did not finish within 60 s");
            }
            return new Result(process.exitValue(), output, error.join());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running hostbed " + args.getFirst(), e);
        }
    }

    private static String command(String... line) throws IOException {
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = readAll(process.getInputStream());
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return output;
    }

    /** The script's messages as one line, without their "hostbed: " prefixes. */
    private static String message(String stderr) {
        return stderr.lines().map(l -> l.replaceFirst("^hostbed: ", "").strip()).filter(l -> !l.isEmpty())
                .collect(Collectors.joining(" "));
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> parse(String info) {
        return info.lines().filter(l -> l.contains("=")).collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')),
                l -> l.substring(l.indexOf('=') + 1), (a, b) -> b, LinkedHashMap::new));
    }

    private static String netnsId(long pid) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/net")).toString();
    }

    /**
     * The script: {@code -Dweightstore.hostbed.script=PATH} when set, else the copy packaged with
     * these classes, written to the temporary directory (it must outlive this JVM: the watchdog that
     * removes the bed after a crash runs it). The copy is named by its content and reused while it
     * is ours and unchanged; otherwise a fresh one is written.
     */
    static Path script() throws IOException {
        String override = System.getProperty("weightstore.hostbed.script");
        if (override != null) {
            return Path.of(override);
        }
        byte[] bytes;
        try (InputStream in = HostBed.class.getResourceAsStream("hostbed.sh")) {
            if (in == null) {
                throw new IOException("hostbed.sh is not packaged with " + HostBed.class.getName()
                        + "; set -Dweightstore.hostbed.script=bench/hostbed/hostbed.sh");
            }
            bytes = in.readAllBytes();
        }
        String digest;
        try {
            digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path target = tmp.resolve("weightstore-hostbed-" + digest + ".sh");
        if (ours(target, bytes)) {
            return target;
        }
        Path temp = Files.createTempFile(tmp, "weightstore-hostbed-", ".sh",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.write(temp, bytes);
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                return target;
            } catch (IOException raced) {
                // Another JVM wrote it meanwhile, or the name is taken: use the fresh copy.
            }
        }
        return temp;
    }

    /** A regular file (not a link), owned by this user, with exactly these bytes. */
    private static boolean ours(Path file, byte[] bytes) {
        try {
            return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    && Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))
                    && Arrays.equals(Files.readAllBytes(file), bytes);
        } catch (IOException e) {
            return false;
        }
    }

    /** A prefix no other run is likely to use: wsbed and 4 random characters. */
    public static String randomPrefix() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom random = new SecureRandom();
        StringBuilder prefix = new StringBuilder("wsbed");
        for (int i = 0; i < 4; i++) {
            prefix.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return prefix.toString();
    }
}

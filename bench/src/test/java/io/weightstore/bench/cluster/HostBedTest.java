package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The host bed on this machine: three hosts at 200 Mbit/s. Skipped, with the reason, where network
 * namespaces cannot be made (not root, no iproute2, no permission).
 */
@Isolated("times transfers against the shaped rate, which another bed's load would slow")
class HostBedTest {
    private static final long RATE = 200_000_000L;
    private static final int SINK_PORT = 5001;
    private static final int ECHO_PORT = 5002;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path logs;

    private static HostBed bed;
    private static String unavailable;
    private static HostProcess sink;
    private static HostProcess echo;

    @BeforeAll
    static void up() throws Exception {
        try {
            bed = HostBed.create(HostBed.Options.hosts(3).withRate("200mbit"));
        } catch (HostBedUnavailableException e) {
            // Each test skips with the reason (an abort here would hide it in the report).
            unavailable = "no host bed here: " + e.getMessage();
            return;
        }
        sink = bed.host(1).start(logs.resolve("sink.log"), LinkProbe.command("serve", bed.host(1).address(), Integer.toString(SINK_PORT)));
        echo = bed.host(2).start(logs.resolve("echo.log"), LinkProbe.command("serve", bed.host(2).address(), Integer.toString(ECHO_PORT)));
        awaitListening(bed.host(1), SINK_PORT, sink);
        awaitListening(bed.host(2), ECHO_PORT, echo);
    }

    @AfterAll
    static void down() {
        if (bed != null) {
            bed.close();
        }
    }

    @Test
    void hostsReachEachOtherByAddressAndNothingElse() throws Exception {
        assumeBed();
        Host.Completed links = bed.host(0).run(COMMAND_TIMEOUT, "ip", "-br", "-4", "addr");
        assertThat(links.output().lines().map(l -> l.split("[\\s@]+")[0]).toList())
                .containsExactlyInAnyOrder("lo", bed.prefix() + "-h0");
        assertThat(links.output()).contains(bed.host(0).address() + "/24");

        assertThat(ping(bed.host(0), bed.host(2), 5000)).as("host 0 reaches host 2").isTrue();

        // The machine's own addresses are not routable from a host: it has its subnet and nothing else.
        for (String own : machineAddresses()) {
            Host.Completed route = bed.host(0).run(COMMAND_TIMEOUT, "ip", "route", "get", own);
            assertThat(route.exitCode()).as("route from host 0 to the machine's " + own + ": " + route.output()).isNotZero();
            assertThat(route.output()).contains("unreachable");
        }
    }

    @Test
    void aTransferBetweenTwoHostsRunsAtTheShapedRate() throws Exception {
        assumeBed();
        long bytes = RATE / 8 * 2;
        long sentBefore = bed.host(0).txBytes();
        send(bed.host(0), bed.host(1), bytes);
        long wire = bed.host(0).txBytes() - sentBefore;
        JsonNode report = lastSinkReports(1).getFirst();
        double goodput = report.get("bitsPerSecond").asDouble();
        double wireRate = wire * 8 / report.get("seconds").asDouble();
        System.out.printf("host 0 -> host 1 at 200 Mbit/s: payload %.1f Mbit/s (%.3f of the rate), on the wire %.1f Mbit/s (%.3f)%n",
                goodput / 1e6, goodput / RATE, wireRate / 1e6, wireRate / RATE);
        assertThat(report.get("bytes").asLong()).isEqualTo(bytes);
        assertThat(goodput).isCloseTo(RATE, within(RATE * 0.15));
        assertThat(wireRate).isCloseTo(RATE, within(RATE * 0.15));
    }

    @Test
    void aHostsDownloadIsShapedTooSoTwoSendersShareIt() throws Exception {
        assumeBed();
        // 2 s each alone: longer than the senders' JVMs start apart, so the link never idles between them.
        long bytes = RATE / 8 * 2;
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                send(bed.host(2), bed.host(1), bytes);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        send(bed.host(0), bed.host(1), bytes);
        other.join();
        List<JsonNode> reports = lastSinkReports(2);
        long start = Math.min(reports.get(0).get("startEpochNanos").asLong(), reports.get(1).get("startEpochNanos").asLong());
        long end = Math.max(reports.get(0).get("endEpochNanos").asLong(), reports.get(1).get("endEpochNanos").asLong());
        double aggregate = 2 * bytes * 8 / ((end - start) / 1e9);
        System.out.printf("hosts 0 and 2 -> host 1 at 200 Mbit/s: %.1f Mbit/s together (%.3f of the rate)%n", aggregate / 1e6,
                aggregate / RATE);
        assertThat(aggregate).isCloseTo(RATE, within(RATE * 0.15));
    }

    @Test
    void aPartitionedHostIsUnreachableUntilHealed() throws Exception {
        assumeBed();
        assertThat(ping(bed.host(0), bed.host(2), 5000)).isTrue();
        bed.host(2).partition();
        try {
            assertThat(ping(bed.host(0), bed.host(2), 1000)).as("host 2 answers while partitioned").isFalse();
        } finally {
            bed.host(2).heal();
        }
        assertThat(ping(bed.host(0), bed.host(2), 5000)).as("host 2 answers after heal").isTrue();
    }

    @Test
    void theRoundTripProbeTimesEachEchoedByte() throws Exception {
        assumeBed();
        Host.Completed rtt = bed.host(0).run(COMMAND_TIMEOUT, LinkProbe.command("rtt", bed.host(2).address(), Integer.toString(ECHO_PORT),
                "50"));
        assertThat(rtt.exitCode()).as(rtt.output()).isZero();
        JsonNode report = BedCluster.json(rtt.output());
        assertThat(report.get("roundTrips").asInt()).isEqualTo(50);
        assertThat(report.get("minMicros").asDouble()).isPositive().isLessThanOrEqualTo(report.get("medianMicros").asDouble());
    }

    @Test
    void aFrozenHostAnswersNothingUntilThawed() throws Exception {
        assumeBed();
        bed.host(2).freeze();
        try {
            assertThat(processState(echo.pid())).isEqualTo('T');
            assertThat(ping(bed.host(0), bed.host(2), 1000)).as("a frozen host answers").isFalse();
        } finally {
            bed.host(2).thaw();
        }
        assertThat(processState(echo.pid())).isNotEqualTo('T');
        assertThat(ping(bed.host(0), bed.host(2), 5000)).as("host 2 answers after thaw").isTrue();
    }

    @Test
    void eachHostSeesOnlyItsOwnPrivateDirectory() throws Exception {
        assumeBed();
        Path file = bed.privateDir().resolve("only-on-host-0");
        assertThat(bed.host(0).run(COMMAND_TIMEOUT, "sh", "-c", "echo pool > " + file).exitCode()).isZero();
        assertThat(bed.host(0).run(COMMAND_TIMEOUT, "test", "-f", file.toString()).exitCode()).as("host 0 sees its file").isZero();
        assertThat(bed.host(1).run(COMMAND_TIMEOUT, "test", "-e", file.toString()).exitCode()).as("host 1 sees host 0's file").isOne();
        assertThat(Files.exists(file)).as("the machine sees host 0's file").isFalse();
    }

    @Test
    void closeLeavesNoNamespaceLinkOrProcess() throws Exception {
        HostBed other = createOrSkip(HostBed.Options.hosts(2).withRate("100mbit"));
        HostProcess sleeper = other.host(1).start(logs.resolve("sleep.log"), "sleep", "600");
        other.host(0).freeze();
        assertThat(other.leftovers()).isNotEmpty();
        other.close();
        assertThat(other.leftovers()).isEmpty();
        assertThat(dead(sleeper.pid())).as("the process on the bed is dead").isTrue();
    }

    @Test
    void aBedWhoseOwnerDiedIsRemovedByItsWatchdog() throws Exception {
        Process owner = new ProcessBuilder("sleep", "600").start();
        String prefix = HostBed.Options.hosts(1).prefix();
        try {
            HostBed.Result up = script(prefix, "up", "--hosts", "2", "--rate", "100mbit", "--owner", Long.toString(owner.pid()));
            Assumptions.assumeTrue(up.exitCode() != HostBed.EXIT_UNAVAILABLE, () -> "no host bed here: " + up.error().strip());
            assertThat(up.exitCode()).as(up.error()).isZero();
            assertThat(namespacesOf(prefix)).hasSize(3);
            owner.destroyForcibly().waitFor();
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (!namespacesOf(prefix).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(namespacesOf(prefix)).isEmpty();
        } finally {
            owner.destroyForcibly();
            script(prefix, "down");
        }
    }

    @Test
    void theLeftoversOfACrashedRunAreRemovedByTheNextBed() throws Exception {
        String prefix = HostBed.Options.hosts(1).prefix();
        // A run that never tore down: no owner to watch, a process still on a host.
        try {
            HostBed.Result up = script(prefix, "up", "--hosts", "2", "--rate", "100mbit");
            Assumptions.assumeTrue(up.exitCode() != HostBed.EXIT_UNAVAILABLE, () -> "no host bed here: " + up.error().strip());
            assertThat(up.exitCode()).as(up.error()).isZero();
            HostBed.Result spawned = script(prefix, "spawn", "1", logs.resolve("crashed.log").toString(), "sleep", "600");
            long crashedPid = Long.parseLong(spawned.output().strip());
            try (HostBed next = HostBed.create(HostBed.Options.hosts(1).withPrefix(prefix))) {
                assertThat(next.size()).isEqualTo(1);
                assertThat(namespacesOf(prefix)).containsExactlyInAnyOrder(prefix + "-sw", prefix + "-h0");
                assertThat(dead(crashedPid)).as("the crashed run's process is dead").isTrue();
            }
            assertThat(namespacesOf(prefix)).isEmpty();
        } finally {
            script(prefix, "down");
        }
    }

    @Test
    void aLatencyIsRefusedWhereTheKernelCannotDelay() throws Exception {
        HostBed.Result probe = script(HostBed.Options.hosts(1).prefix(), "probe");
        Assumptions.assumeTrue(probe.exitCode() != HostBed.EXIT_UNAVAILABLE, () -> "no host bed here: " + probe.error().strip());
        Assumptions.assumeTrue(probe.output().contains("qdisc.netem=no"), "this kernel has netem: a latency can be honoured");
        String prefix = HostBed.Options.hosts(1).prefix();
        assertThatThrownBy(() -> HostBed.create(HostBed.Options.hosts(2).withPrefix(prefix).withLatencyMillis(5)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no netem")
                .hasMessageContaining("refusing");
        assertThat(namespacesOf(prefix)).isEmpty();
    }

    @Test
    void withoutRootTheScriptSaysWhyAndExitsWithTheSkipStatus(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is not installed");
        Assumptions.assumeTrue(System.getProperty("user.name").equals("root"), "not root: cannot switch to another user to test");
        Path copy = dir.resolve("hostbed.sh");
        Files.copy(HostBed.script(), copy);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
        Process process = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash",
                copy.toString(), "up", "--hosts", "1").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(output).isEqualTo(HostBed.EXIT_UNAVAILABLE);
        assertThat(output).contains("needs root");
    }

    // ---- helpers

    private static void assumeBed() {
        Assumptions.assumeTrue(bed != null, () -> unavailable);
    }

    static HostBed createOrSkip(HostBed.Options options) throws IOException {
        try {
            return HostBed.create(options);
        } catch (HostBedUnavailableException e) {
            return Assumptions.abort("no host bed here: " + e.getMessage());
        }
    }

    private static void send(Host from, Host to, long bytes) throws Exception {
        Host.Completed sent = from.run(COMMAND_TIMEOUT, LinkProbe.command("send", to.address(), Integer.toString(SINK_PORT), Long.toString(bytes)));
        assertThat(sent.exitCode()).as(sent.output()).isZero();
    }

    private static boolean ping(Host from, Host to, int timeoutMillis) throws Exception {
        return from.run(COMMAND_TIMEOUT, LinkProbe.command("ping", to.address(), Integer.toString(ECHO_PORT), Integer.toString(timeoutMillis)))
                .exitCode() == 0;
    }

    private static List<JsonNode> lastSinkReports(int count) throws IOException {
        List<JsonNode> reports = new ArrayList<>();
        for (String line : Files.readAllLines(sink.log())) {
            if (line.startsWith("{\"bytes\"")) {
                reports.add(JSON.readTree(line));
            }
        }
        assertThat(reports).hasSizeGreaterThanOrEqualTo(count);
        return reports.subList(reports.size() - count, reports.size());
    }

    private static void awaitListening(Host host, int port, HostProcess process) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!host.listening(port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new TimeoutException(process + " does not listen on port " + port + ": " + process.output());
            }
            Thread.sleep(20);
        }
    }

    /** Gone, or a zombie that its parent (here possibly PID 1) has not reaped yet. */
    private static boolean dead(long pid) {
        try {
            return processState(pid) == 'Z';
        } catch (IOException gone) {
            return true;
        }
    }

    private static char processState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
    }

    private static List<String> machineAddresses() throws IOException {
        List<String> addresses = new ArrayList<>();
        for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
            for (InetAddress address : nic.inetAddresses().toList()) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
                    addresses.add(address.getHostAddress());
                }
            }
        }
        return addresses;
    }

    private static HostBed.Result script(String prefix, String... args) throws IOException {
        List<String> line = new ArrayList<>(List.of("bash", HostBed.script().toString(), "--prefix", prefix));
        line.addAll(List.of(args));
        Process process = new ProcessBuilder(line).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String error = new String(process.getErrorStream().readAllBytes());
        String output = new String(process.getInputStream().readAllBytes());
        try {
            return new HostBed.Result(process.waitFor(), output, error);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static List<String> namespacesOf(String prefix) throws IOException {
        Process process = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        return new String(process.getInputStream().readAllBytes()).lines().map(l -> l.split(" ")[0])
                .filter(n -> n.startsWith(prefix + "-")).toList();
    }
}

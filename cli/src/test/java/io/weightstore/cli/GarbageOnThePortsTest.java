package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12.8: garbage on the master's and a node's ports gets no stack traces, a bounded log, and harms no load. */
class GarbageOnThePortsTest {
    @TempDir
    Path tmp;

    private static void sendGarbage(int port, int connections, long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < connections; i++) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(2000);
                byte[] garbage = new byte[64 + random.nextInt(2048)];
                random.nextBytes(garbage);
                OutputStream out = socket.getOutputStream();
                out.write(garbage);
                socket.shutdownOutput();
                socket.getInputStream().readAllBytes();
            } catch (IOException e) {
                // A server that closes with garbage unread resets the connection: that is the refusal.
            }
        }
    }

    @Test
    void twoHundredGarbageConnectionsLeaveShortLogsAndServingProcesses() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 2, "1M", "64M")) {
            checkpoint.importInto(cluster.client(), "garbage", 2);
            long masterLog = cluster.masterProcess().output().length();
            long nodeLog = cluster.node(0).process().output().length();

            sendGarbage(Integer.parseInt(cluster.master().split(":")[1]), 200, 1);
            sendGarbage(cluster.node(0).port(), 200, 2);

            String masterSaid = cluster.masterProcess().output().substring((int) masterLog);
            String nodeSaid = cluster.node(0).process().output().substring((int) nodeLog);
            assertThat(masterSaid).doesNotContain("\tat ").doesNotContain("Exception:");
            assertThat(nodeSaid).doesNotContain("\tat ");
            assertThat(masterSaid.lines().count()).as("master log lines for 200 garbage connections").isLessThanOrEqualTo(12);
            assertThat(nodeSaid.lines().count()).as("node log lines for 200 garbage connections").isLessThanOrEqualTo(12);
            assertThat(TensorDigests.ofLoad(cluster.client(), "garbage", () -> {})).isEqualTo(checkpoint.digests());
        }
    }
}

package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** An etcd cluster on loopback that the scale bench starts in a directory of its own, and stops and deletes. */
final class EtcdPeers implements AutoCloseable {
    private final List<PeerProcess> members;
    private final String endpoints;
    private final Path dir;

    private EtcdPeers(List<PeerProcess> members, String endpoints, Path dir) {
        this.members = members;
        this.endpoints = endpoints;
        this.dir = dir;
    }

    static EtcdPeers start(Path dir, int size) throws IOException {
        Path etcd = PeerProcess.find("etcd");
        if (etcd == null) {
            throw new IOException("etcd is not installed: run bench/install-peers.sh (Debian's etcd-server), or give --etcd");
        }
        Files.createDirectories(dir);
        int[] client = new int[size];
        int[] peer = new int[size];
        for (int i = 0; i < size; i++) {
            client[i] = PeerProcess.freePort();
            peer[i] = PeerProcess.freePort();
        }
        StringBuilder initial = new StringBuilder();
        for (int i = 0; i < size; i++) {
            initial.append(i == 0 ? "" : ",").append("s").append(i).append("=http://127.0.0.1:").append(peer[i]);
        }
        List<PeerProcess> started = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                String url = "http://127.0.0.1:" + client[i];
                String peerUrl = "http://127.0.0.1:" + peer[i];
                started.add(PeerProcess.start("etcd s" + i, List.of(etcd.toString(), "--name", "s" + i,
                        "--data-dir", dir.resolve("s" + i).toString(), "--listen-client-urls", url, "--advertise-client-urls", url,
                        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl, "--initial-cluster", initial.toString(),
                        "--initial-cluster-state", "new", "--log-level", "warn"), client[i], dir.resolve("s" + i + ".log")));
            }
        } catch (IOException | RuntimeException e) {
            started.forEach(PeerProcess::close);
            delete(dir);
            throw e;
        }
        return new EtcdPeers(started, started.stream().map(p -> "http://127.0.0.1:" + p.port()).collect(Collectors.joining(",")), dir);
    }

    String endpoints() {
        return endpoints;
    }

    /** Stops the members and deletes their data: on /dev/shm it is memory (a full-size run leaves 1.5 GB). */
    @Override
    public void close() {
        members.forEach(PeerProcess::close);
        delete(dir);
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // nothing there, or already gone
        }
    }
}

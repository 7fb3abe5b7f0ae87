package io.weightstore.bench;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Read throughput of one multi-GiB object from a three-node cluster on loopback, over sockets with
 * 1 to 8 connections and over the same-host path, beside memcpy and a raw sendfile socket measured
 * in the same run. Pools and the source file live in {@code workDir} (use /dev/shm for memory).
 */
public final class StoreReadBench {
    /** What the harness measured; ratios are to the best ceiling of each kind. */
    public record Report(long objectBytes, int runs, Measurement memcpy, List<Measurement> rawSocket, List<Measurement> store) {
        public Measurement bestRawSocket() {
            return rawSocket.stream().max(Comparator.comparingDouble(Measurement::median)).orElseThrow();
        }
    }

    private StoreReadBench() {}

    public static Report run(Path workDir, long objectBytes, int runs, int[] connections) throws Exception {
        Path dir = Files.createTempDirectory(workDir, "ws-bench-");
        try (Arena arena = Arena.ofShared()) {
            Path source = dir.resolve("object.bin");
            writeSource(source, objectBytes);
            MemorySegment dst = arena.allocate(objectBytes, 64);
            dst.fill((byte) 0);

            List<Measurement.Timed> paths = new ArrayList<>();
            paths.add(Ceilings.memcpy(arena, Math.min(objectBytes, 1L << 30)));
            int[] rawConnections = {1, 2, 4};
            // Everything the interleaved runs need stays open until the last run; closed newest first.
            Deque<AutoCloseable> open = new ArrayDeque<>();
            long nodeCapacity = Math.ceilDiv(objectBytes, 3) + (256L << 20);
            List<Measurement> measured;
            try (MasterServer master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure())) {
                try {
                    for (int c : rawConnections) {
                        Ceilings.RawSocket raw = Ceilings.rawSocket(source, dst, c);
                        open.push(raw);
                        paths.add(raw.timed());
                    }
                    String address = "127.0.0.1:" + master.port();
                    for (int i = 0; i < 3; i++) {
                        open.push(StorageNode.start(address, NodeOptions.loopback(dir.resolve("pool" + i), nodeCapacity)));
                    }
                    try (StoreClient writer = StoreClient.connect(address, ClientOptions.defaults().withSameHostPath(false))) {
                        writer.put("bench/object", source, PutOptions.defaults(), Progress.NONE);
                    }
                    Range whole = new Range(0, objectBytes);
                    // Each client opens the object once, as a loader holds a file open while it reads it.
                    for (int c : connections) {
                        StoreClient client = StoreClient.connect(address, ClientOptions.defaults().withSameHostPath(false).withConnections(c));
                        open.push(client);
                        ObjectReader object = client.open("bench/object");
                        open.push(object);
                        paths.add(new Measurement.Timed("store, loopback", "3 nodes, " + c + " conn", objectBytes,
                                () -> object.read(whole, dst)));
                    }
                    for (int c : new int[] {1, 2}) {
                        StoreClient client = StoreClient.connect(address, ClientOptions.defaults().withSameHostPath(true).withConnections(c));
                        open.push(client);
                        ObjectReader object = client.open("bench/object");
                        open.push(object);
                        paths.add(new Measurement.Timed("store, same host", "mapped pools, " + c + " thread" + (c > 1 ? "s" : ""),
                                objectBytes, () -> object.read(whole, dst)));
                    }
                    measured = Measurement.interleaved(runs, paths);
                    verify(source, dst);
                } finally {
                    while (!open.isEmpty()) {
                        open.pop().close();
                    }
                }
            }
            Measurement memcpy = measured.getFirst();
            List<Measurement> raw = measured.subList(1, 1 + rawConnections.length);
            List<Measurement> store = measured.subList(1 + rawConnections.length, measured.size());
            return new Report(objectBytes, runs, memcpy, raw, store);
        } finally {
            WorkDirectory.delete(dir);
        }
    }

    /** Pseudo-random bytes, so nothing along the way can shortcut on zeros. */
    static void writeSource(Path file, long bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment chunk = arena.allocate(8 << 20, 64);
            SplittableRandom random = new SplittableRandom(1);
            for (long done = 0; done < bytes; ) {
                for (long i = 0; i < chunk.byteSize(); i += 8) {
                    chunk.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
                }
                var buffer = chunk.asSlice(0, Math.min(chunk.byteSize(), bytes - done)).asByteBuffer();
                while (buffer.hasRemaining()) {
                    done += channel.write(buffer);
                }
            }
        }
    }

    /** The last read must have brought back exactly the source bytes; a fast wrong answer is no result. */
    private static void verify(Path source, MemorySegment dst) throws IOException {
        try (FileChannel channel = FileChannel.open(source, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, dst.byteSize(), arena);
            long mismatch = mapped.mismatch(dst);
            if (mismatch != -1) {
                throw new IllegalStateException("store returned different bytes at offset " + mismatch);
            }
        }
    }
}

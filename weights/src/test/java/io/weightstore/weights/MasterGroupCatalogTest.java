package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.MasterGroupCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An import into a group of three masters (each a JVM) whose leader is killed with SIGKILL part way through. */
class MasterGroupCatalogTest {
    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(3);

    @TempDir
    Path tmp;

    @Test
    void anImportWhoseLeaderIsKilledResumesOrFailsCleanlyAndARunAgainMakesItReady() throws Exception {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.forSize(24L << 20, DType.BF16, 4L << 20, 7), source, b -> {});
        Files.createDirectories(tmp.resolve("group"));
        try (MasterGroupCluster group = new MasterGroupCluster(tmp.resolve("group"), ETCD.cluster(), "import", 3, 3, true);
                ExecutorService runner = Executors.newSingleThreadExecutor()) {
            int leader = group.awaitLeader(-1, Duration.ofSeconds(60));
            StoreClient store = group.client();
            Catalog catalog = new Catalog(store);
            ImportRequest request = new ImportRequest(CheckpointId.of("ha-import"), "org/tiny", "main", source, 2, false, 2);

            // Slowed down so that the leader dies with files still to send.
            AtomicLong sent = new AtomicLong();
            CountDownLatch underWay = new CountDownLatch(1);
            Progress slow = new Progress() {
                @Override
                public void advanced(long bytes) {
                    if (sent.addAndGet(bytes) > 6L << 20) {
                        underWay.countDown();
                    }
                    try {
                        Thread.sleep(40);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            Future<ImportResult> first = runner.submit(() -> new CheckpointImporter(catalog).run(request, slow));
            assertThat(underWay.await(60, TimeUnit.SECONDS)).isTrue();
            group.kill(leader);

            ImportResult result;
            String outcome;
            try {
                result = first.get(120, TimeUnit.SECONDS);
                outcome = "resumed through the change of leader";
            } catch (ExecutionException e) {
                assertThat(e.getCause()).as("a clean failure").isInstanceOf(IOException.class);
                outcome = "failed cleanly (" + e.getCause().getMessage() + "), then ran again";
                result = new CheckpointImporter(catalog).run(request, Progress.NONE);
            }
            System.out.println("IMPORT with the leader killed at " + (sent.get() >> 20) + " MiB sent: " + outcome);
            assertThat(result.manifest().status()).isEqualTo(CheckpointStatus.READY);
            List<FileVerdict> verdicts = new CheckpointVerifier(catalog).run(request.checkpointId(), CheckpointVerifier.Mode.FULL,
                    Progress.NONE).files();
            assertThat(verdicts).isNotEmpty().allSatisfy(v -> assertThat(v.status()).as(v.path()).isEqualTo(FileVerdict.Status.OK));
            assertThat(catalog.list()).extracting(listed -> listed.manifest().checkpointId()).containsExactly(request.checkpointId());
        }
    }
}

package io.weightstore.gateway.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.pool.StitchedMapping;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How long a file's check in place counts, and for which version and placement of it. */
class InPlaceChecksTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final InPlaceChecks checks = new InPlaceChecks(now::get);

    private static ObjectMeta object(Instant createdAt, String node) {
        return new ObjectMeta("weights/c/files/model.safetensors", 100, 100, 64,
                List.of(new SliceMeta(0, 100, List.of(new ReplicaRef(node, 4096)), BlockCrcs.of(1, 2))), false, createdAt, 1);
    }

    private static List<StitchedMapping.Piece> copies(String pool) {
        return List.of(new StitchedMapping.Piece(Path.of(pool), UUID.nameUUIDFromBytes(pool.getBytes(StandardCharsets.UTF_8)), 4096,
                100));
    }

    @Test
    void aPassedCheckCountsForTwoMinutesThenTheFileIsCheckedAgain() {
        ObjectMeta file = object(Instant.EPOCH, "n1");
        assertThat(checks.current(file, copies("n1"))).as("never checked").isFalse();
        checks.passed(file, copies("n1"));
        now.addAndGet(InPlaceChecks.VALID.toNanos() - 1);
        assertThat(checks.current(file, copies("n1"))).isTrue();
        now.addAndGet(1);
        assertThat(checks.current(file, copies("n1"))).as("two minutes after its check").isFalse();
    }

    @Test
    void aReplacedFileOrACopyMovedToAnotherNodeIsCheckedAgain() {
        checks.passed(object(Instant.EPOCH, "n1"), copies("n1"));
        assertThat(checks.current(object(Instant.EPOCH.plusSeconds(1), "n1"), copies("n1"))).as("another version").isFalse();
        assertThat(checks.current(object(Instant.EPOCH, "n2"), copies("n2"))).as("the copy on another node").isFalse();
        assertThat(checks.current(object(Instant.EPOCH, "n1"), copies("n1"))).isTrue();
    }

    @Test
    void aCheckOfOtherCopiesOnThisHostDoesNotCountForTheFilesOpenNow() {
        // Files opened before the object moved, checked after: the pass is of those files, not of the object as stored now.
        checks.passed(object(Instant.EPOCH, "n2"), copies("n1"));
        assertThat(checks.current(object(Instant.EPOCH, "n2"), copies("n2"))).isFalse();
        assertThat(checks.current(object(Instant.EPOCH, "n2"), copies("n1"))).isTrue();
    }
}

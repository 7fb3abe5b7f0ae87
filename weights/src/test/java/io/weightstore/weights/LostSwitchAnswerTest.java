package io.weightstore.weights;

import static io.weightstore.weights.CatalogContract.assertCheckpointError;
import static io.weightstore.weights.CatalogContract.flipLastByte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.AnswerLosingMaster;
import io.weightstore.store.InProcessStore;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The switch of a replace is one write of the checkpoint's manifest; a master may commit it and lose
 * its answer. The importer must then not free what it sent, which loaders now read. A delete, which a
 * master group makes in parts, may likewise stop after some: it must leave what a user can see.
 */
class LostSwitchAnswerTest {
    private static final CheckpointId TINY = new CheckpointId("tiny");

    @TempDir
    Path tmp;

    private Path source;
    private AnswerLosingMaster faults;
    private StoreClient store;

    @BeforeEach
    void open() throws IOException {
        source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 3), source, b -> {});
        store = InProcessStore.open(tmp.resolve("store"), 256L << 20, master -> {
            faults = AnswerLosingMaster.over(master);
            return faults.api();
        });
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aReplaceWhoseSwitchTookEffectButLostItsAnswerIsReadyWithEveryFileItSent() throws Exception {
        importR1AndChangeAShard();
        faults.loseTheAnswerToTheNextSealOf(Catalog.manifestKey(TINY));

        ImportResult replaced = replace("r2");

        assertThat(replaced.uploadedFiles()).isEqualTo(1);
        Manifest live = catalog().readyManifest(TINY);
        assertThat(live.revision()).isEqualTo("r2");
        assertThat(live.version()).isEqualTo(1);
        assertThat(store.list("weights/tiny/v1/")).as("the changed shard and its CRC table, kept").hasSize(2);
        assertVerifiesWhole();
    }

    @Test
    void aSwitchWhoseOutcomeCannotBeReadFreesNothingAndARunAgainFindsItDone() throws Exception {
        importR1AndChangeAShard();
        faults.loseTheAnswerToTheNextSealOfAndThenReadsOf(Catalog.manifestKey(TINY));

        assertCheckpointError(() -> replace("r2"), CheckpointException.Code.NOT_READY, "is unknown");

        faults.heal();
        assertThat(catalog().readyManifest(TINY).revision()).as("the switch took effect").isEqualTo("r2");
        assertVerifiesWhole();
        assertThat(replace("r2").uploadedFiles()).as("everything already stored").isZero();
        assertThat(catalog().readyManifest(TINY).revision()).isEqualTo("r2");
        assertVerifiesWhole();
    }

    @Test
    void aDeleteCutShortLeavesTheCheckpointListedAndASecondDeleteFinishesIt() throws Exception {
        importR1AndChangeAShard();
        replace("r2");
        int objects = store.list(Catalog.prefix(TINY)).size();
        faults.cutShortTheNextRemovalAfter(objects - 1);

        assertThatThrownBy(() -> new CheckpointRemover(catalog()).run(TINY, false)).isInstanceOf(StoreException.class);

        assertThat(store.list(Catalog.prefix(TINY))).as("what the cut-short delete left").hasSize(1);
        assertThat(catalog().list()).as("checkpoints listed, so that the user sees what to delete again")
                .extracting(listed -> listed.manifest().checkpointId()).containsExactly(TINY);
        new CheckpointRemover(catalog()).run(TINY, false);
        assertThat(store.list(Catalog.prefix(TINY))).isEmpty();
    }

    @Test
    void aDeleteThatLostItsLockBeforeItsRemovalRemovesNothing() throws Exception {
        importR1AndChangeAShard();
        int objects = store.list(Catalog.prefix(TINY)).size();
        String lock = Catalog.lockName(TINY);
        String next = "another-host/1/import/tiny";
        // As if the delete had been paused past its lock's expiry after listing, and an import had taken the lock.
        faults.beforeTheNextRemoval(() -> {
            store.releaseLock(lock, store.tryLock(lock, next, CatalogLock.TTL).owner());
            return store.tryLock(lock, next, CatalogLock.TTL);
        });

        assertThatThrownBy(() -> new CheckpointRemover(catalog()).run(TINY, false)).hasMessageContaining("no longer holds it")
                .hasMessageContaining("another writer took it").hasMessageNotContaining("being read");

        assertThat(store.list(Catalog.prefix(TINY))).as("what the delete left").hasSize(objects);
        assertThat(store.tryLock(lock, next, CatalogLock.TTL).held()).as("still the next holder's").isTrue();
        store.releaseLock(lock, next);
        assertVerifiesWhole();
    }

    private Catalog catalog() {
        return new Catalog(store);
    }

    private void importR1AndChangeAShard() throws IOException {
        new CheckpointImporter(catalog()).run(new ImportRequest(TINY, "org/tiny", "r1", source, 1, false, 2), Progress.NONE);
        try (var files = Files.list(source)) {
            flipLastByte(files.filter(f -> f.toString().endsWith(".safetensors")).max(Comparator.comparingLong(f -> f.toFile().length()))
                    .orElseThrow());
        }
    }

    private ImportResult replace(String revision) throws IOException {
        return new CheckpointImporter(catalog()).run(new ImportRequest(TINY, "org/tiny", revision, source, 1, true, 1), Progress.NONE);
    }

    private void assertVerifiesWhole() throws IOException {
        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog()).run(TINY, CheckpointVerifier.Mode.FULL, b -> {});
        assertThat(verified.ok()).as(verified.toString()).isTrue();
    }
}

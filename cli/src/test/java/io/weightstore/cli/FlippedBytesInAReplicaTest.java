package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bytes flipped in a node's pool never reach a tensor: another replica serves them, or the load fails naming the slice. */
class FlippedBytesInAReplicaTest {
    @TempDir
    Path tmp;

    /** Flips 4 bytes in the first replica of slice 0 of the checkpoint's first weight file. */
    private static String rot(ChaosCluster cluster, StoreClient store, String id) throws Exception {
        ObjectMeta file = store.list("weights/" + id + "/files/").stream().filter(o -> o.key().endsWith(".safetensors"))
                .findFirst().orElseThrow();
        ReplicaRef replica = file.slice(0).replicas().getFirst();
        cluster.nodeById(replica.nodeId()).flipBytes(replica.offset() + 10_000, 4);
        return file.key();
    }

    @Test
    void loadReadsEveryTensorIntactFromTheGoodReplica() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 3, "1M", "128M")) {
            StoreClient store = cluster.client();
            checkpoint.importInto(store, "rot2", 2);
            rot(cluster, store, "rot2");
            assertThat(TensorDigests.ofLoad(cluster.client(), "rot2", () -> {})).isEqualTo(checkpoint.digests());

            checkpoint.importInto(store, "rot1", 1);
            String key = rot(cluster, store, "rot1");
            assertThatThrownBy(() -> TensorDigests.ofLoad(cluster.client(), "rot1", () -> {})).isInstanceOf(StoreException.class)
                    .hasMessageContaining("checksum mismatch").hasMessageContaining(key).hasMessageContaining("slice 0");
        }
    }
}

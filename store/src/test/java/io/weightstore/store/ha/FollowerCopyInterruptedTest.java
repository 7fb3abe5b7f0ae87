package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.TamperingProxy;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A copy whose watch was interrupted is dropped and loaded again: jetcd resumes such a watch from a
 * revision it may have taken from a header (etcd's revision when the watch was created, ahead of the
 * changes still to come to it), so the changes in between would never come.
 */
class FollowerCopyInterruptedTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(1);

    @Test
    void aCopyWhoseWatchWasInterruptedIsDroppedUntilItLoadsAgain() throws Exception {
        ClusterKeys keys = new ClusterKeys("interrupted-" + UUID.randomUUID());
        try (TamperingProxy proxy = new TamperingProxy(URI.create(ETCD.cluster().endpoints()).getPort(), -1);
                Client throughProxy = Client.builder().endpoints("http://127.0.0.1:" + proxy.port()).build();
                FollowerCopy copy = FollowerCopy.start(throughProxy, keys, TIMEOUT, Duration.ofSeconds(2))) {
            assertThat(copy.current(EtcdMetadataStoreTest.lead(ETCD.client(), keys))).isPresent();
            // The copy is loaded, so this hand-over can only reach it through the watch, which is then up when the network breaks.
            assertThat(copy.current(handOver(keys))).isPresent();

            proxy.cut();
            assertThat(copy.current(handOver(keys))).as("the copy right after its watch was interrupted").isEmpty();

            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            Optional<MetadataRecords> again = copy.current(handOver(keys));
            while (again.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
                again = copy.current(handOver(keys));
            }
            assertThat(again).as("the copy loaded again after its pause").isPresent();
        }
    }

    private static Fence handOver(ClusterKeys keys) throws Exception {
        ETCD.client().getKVClient().delete(keys.leader()).get();
        return EtcdMetadataStoreTest.lead(ETCD.client(), keys);
    }
}

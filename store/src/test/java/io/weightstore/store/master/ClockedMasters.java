package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.InstanceOfAssertFactories;

/** What the master's rule tests share: a small config, nodes that need no process, and a master on a clock the test moves. */
final class ClockedMasters {
    static final long SLICE = 1 << 20;
    static final long NODE = 16 * SLICE;

    private ClockedMasters() {}

    static MasterConfig config() {
        return new MasterConfig(SLICE, 64 << 10, Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofSeconds(30),
                Duration.ofSeconds(60), 0.75);
    }

    static NodeInfo node(String id) {
        return node(id, NODE);
    }

    static NodeInfo node(String id, long capacity) {
        return new NodeInfo(id, new Endpoint("h", 1), "", new UUID(0, id.hashCode()), capacity);
    }

    /** A master over a RocksDB store in {@code dir}, whose time is {@code now} in milliseconds. */
    static MasterCore open(Path dir, AtomicLong now) throws StoreException {
        return MasterCore.open(RocksMetadataStore.open(dir), config(), now::get);
    }

    /** Asserts that {@code action} is refused with {@code code}, in a message that holds every one of {@code fragments}. */
    static void assertCode(ThrowingAction action, StoreException.Code code, String... fragments) {
        assertThatThrownBy(action::run).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(code))
                .satisfies(e -> List.of(fragments).forEach(f -> assertThat(e.getMessage()).contains(f)));
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }
}

package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import org.junit.jupiter.api.Test;

/** Lists of masters, as --store, $WEIGHTSTORE_MASTER and the config file give them. */
class MasterAddressTest {
    @Test
    void aListIsEveryMasterInOrder() throws StoreException {
        assertThat(MasterAddress.parseList("h1:7070, h2:7071,[::1]:7072")).extracting(MasterAddress::toString)
                .containsExactly("h1:7070", "h2:7071", "[::1]:7072");
        assertThat(MasterAddress.parseList("h1:7070")).hasSize(1);
    }

    @Test
    void aBadEntryOrARepeatIsRefusedNamingIt() {
        assertThatThrownBy(() -> MasterAddress.parseList("h1:7070,,h2:7070")).hasMessageContaining("expected HOST:PORT");
        assertThatThrownBy(() -> MasterAddress.parseList("h1:7070,h2:x")).hasMessageContaining("'x' is not a number");
        assertThatThrownBy(() -> MasterAddress.parseList("h1:7070,h1:7070")).hasMessageContaining("h1:7070 is listed twice");
    }
}

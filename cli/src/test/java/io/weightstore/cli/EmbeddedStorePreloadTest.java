package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.weights.StoreLocator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which command lines load the embedded store's native libraries while the command line is built. */
class EmbeddedStorePreloadTest {
    private static final Map<String, String> NO_SELECTION = Map.of("HOME", "/root");

    @Test
    void verbsThatOpenTheDefaultStorePreloadIt() {
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list"), NO_SELECTION)).isTrue();
        assertThat(EmbeddedStorePreload.wanted(List.of("generate", "--model", "weightstore://m", "--prompt", "hi"), NO_SELECTION))
                .isTrue();
        assertThat(EmbeddedStorePreload.wanted(List.of("quickstart"), NO_SELECTION)).isTrue();
    }

    @Test
    void aCommandThatNamesAClusterOrAConfigurationFileDoesNot() {
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list", "--store", "10.0.0.1:7600"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list", "--store=10.0.0.1:7600"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("serve", "--config=/etc/weightstore.yaml"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list"), Map.of(StoreLocator.MASTER_ENV, "10.0.0.1:7600"))).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list"), Map.of(StoreLocator.CONFIG_ENV, "/etc/w.yaml"))).isFalse();
    }

    @Test
    void verbsThatOpenNoStoreAndRequestsForHelpDoNot() {
        assertThat(EmbeddedStorePreload.wanted(List.of(), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("cert", "init"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("node", "--pool", "/mnt/pool"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "import", "--help"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "-h"), NO_SELECTION)).isFalse();
    }

    @Test
    void aModelVerbPreloadsForAStoreModelOnly() {
        assertThat(EmbeddedStorePreload.wanted(List.of("serve", "--model=weightstore://m"), NO_SELECTION)).isTrue();
        assertThat(EmbeddedStorePreload.wanted(List.of("generate", "--model", "/models/llama", "--prompt", "hi"), NO_SELECTION))
                .isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("serve", "--model=/models/llama"), NO_SELECTION)).isFalse();
        assertThat(EmbeddedStorePreload.wanted(List.of("generate", "--prompt", "hi", "--model"), NO_SELECTION)).isFalse();
    }

    @Test
    void aBlankSelectionInTheEnvironmentSelectsNothing() {
        assertThat(EmbeddedStorePreload.wanted(List.of("model", "list"), Map.of(StoreLocator.MASTER_ENV, " "))).isTrue();
    }
}

package io.weightstore.jlama.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The key a server requires, as operators give it and as clients send it. */
class ApiKeyTest {
    @Test
    void aKeyFromAFileWithItsTrailingNewlineAdmitsClientsThatSendTheKey() {
        ApiKey key = ApiKey.of("sk-k3y\n");

        assertThat(key.admits("Bearer sk-k3y")).isTrue();
        assertThat(key.admits("bearer sk-k3y ")).isTrue();
        assertThat(key.admits("Bearer sk-k3y\n")).isTrue();
        assertThat(key.admits("Bearer sk-k3")).isFalse();
        assertThat(key.admits("sk-k3y")).isFalse();
        assertThat(key.admits(null)).isFalse();
    }

    @Test
    void anEmptyKeyOrOneHoldingWhitespaceIsRefused() {
        assertThatThrownBy(() -> ApiKey.of("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> ApiKey.of(" \n")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> ApiKey.of("sk one")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whitespace");
    }
}

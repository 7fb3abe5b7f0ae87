package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TokensTest {
    @Test
    void tokensAre32RandomBytesInBase64UrlAfterAPrefix() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String token = Tokens.generate().reveal();
            assertThat(token).matches("wst_[A-Za-z0-9_-]{43}");
            assertThat(seen.add(token)).isTrue();
        }
    }

    @Test
    void verifyAcceptsTheTokenAndRefusesAnyOther() {
        Token token = Tokens.generate();
        TokenHash stored = token.hash();
        assertThat(Tokens.verify(token.reveal(), stored)).isTrue();
        assertThat(Tokens.verify(new StringBuilder(token.reveal()), stored)).isTrue();
        String text = token.reveal();
        String oneCharOff = text.substring(0, text.length() - 1) + (text.endsWith("A") ? "B" : "A");
        assertThat(Tokens.verify(oneCharOff, stored)).isFalse();
        assertThat(Tokens.verify(Tokens.generate().reveal(), stored)).isFalse();
        assertThat(Tokens.verify("", stored)).isFalse();
        assertThat(Tokens.verify(null, stored)).isFalse();
    }

    @Test
    void theHashIsSha256InHexAndTheStoredFormIsChecked() {
        assertThat(Tokens.hash("abc").sha256())
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThatThrownBy(() -> new TokenHash("ABC"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sha256=ABC must be 64 lower-case hex digits");
    }

    @Test
    void aTokenNeverShowsInToString() {
        Token token = Tokens.generate();
        assertThat(token.toString()).doesNotContain(token.reveal().substring(Tokens.PREFIX.length())).contains("redacted");
        assertThat(String.valueOf(token)).isEqualTo(token.toString());
        assertThat(token.hash().toString()).doesNotContain(token.reveal());
    }
}

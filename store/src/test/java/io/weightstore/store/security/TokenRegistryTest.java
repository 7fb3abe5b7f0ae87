package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master's tokens file: who each token's holder is. */
class TokenRegistryTest {
    @TempDir
    Path tmp;

    @Test
    void aTokenOfAClientRoleIdentifiesItsHolder() throws Exception {
        String token = Tokens.generate().reveal();
        Path file = Files.writeString(tmp.resolve("tokens"), "# name role sha256\nengine-a reader " + Tokens.hash(token).sha256() + "\n");

        assertThat(TokenRegistry.load(file).identify(token)).contains(new Identity("engine-a", Role.READER));
    }

    @Test
    void aLineOfOtherThanThreeFieldsIsABadFileNotOneThatCannotBeRead() throws Exception {
        Path file = Files.writeString(tmp.resolve("tokens"), "engine-a reader\n");

        assertThatThrownBy(() -> TokenRegistry.load(file)).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.code()).isEqualTo(StoreException.Code.INVALID_ARGUMENT))
                .hasMessage("tokens file " + file + " line 1: expected 'name role sha256', found 2 fields");
    }

    /** A token of a node's role, written by hand or by another tool, would let its holder register and heartbeat as that node. */
    @Test
    void aLineGivingATokenTheRoleOfANodeOrAMasterIsRefusedNamingTheLine() throws Exception {
        for (Role role : new Role[] {Role.NODE, Role.MASTER}) {
            Path file = Files.writeString(tmp.resolve("tokens-" + role.label()), "\nnode-1 " + role.label() + " "
                    + Tokens.hash(Tokens.generate().reveal()).sha256() + "\n");

            assertThatThrownBy(() -> TokenRegistry.load(file)).isInstanceOfSatisfying(StoreException.class,
                    e -> assertThat(e.code()).isEqualTo(StoreException.Code.INVALID_ARGUMENT))
                    .hasMessageContaining("tokens file " + file + " line 2: role=" + role.label() + " of node-1 cannot hold a token");
        }
    }
}

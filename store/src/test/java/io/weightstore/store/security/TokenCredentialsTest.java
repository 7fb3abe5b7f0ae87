package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A credentials directory that holds a token rather than a certificate. */
class TokenCredentialsTest {
    @TempDir
    Path tmp;

    @Test
    void aTokenFileThatHoldsNoWeightstoreTokenIsRefusedNamingTheFile() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"));
        Path dir = Files.createDirectories(tmp.resolve("client"));
        Files.copy(ca.dir().resolve(Credentials.CA_CERT_FILE), dir.resolve(Credentials.CA_CERT_FILE));
        Path token = Files.writeString(dir.resolve(Authentication.TOKEN_FILE), "sk-abc\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> Authentication.load(dir)).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.code()).isEqualTo(StoreException.Code.INVALID_ARGUMENT))
                .hasMessageContaining("credentials " + dir + ": " + token + ": not a weightstore token");
    }

    @Test
    void aGoodTokenFileLoadsAsABearerToken() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"));
        Path dir = Files.createDirectories(tmp.resolve("client"));
        Files.copy(ca.dir().resolve(Credentials.CA_CERT_FILE), dir.resolve(Credentials.CA_CERT_FILE));
        Path token = Files.writeString(dir.resolve(Authentication.TOKEN_FILE), Tokens.generate().reveal() + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

        assertThat(Authentication.load(dir)).isInstanceOf(Authentication.BearerToken.class);
    }
}

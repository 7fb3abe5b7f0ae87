package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A certificate's end is the end of what it may do, on a connection made before it too. */
class ExpiringCertificateTest {
    private static final Duration VALIDITY = Duration.ofSeconds(6);

    @TempDir
    Path tmp;

    /**
     * A connection kept busy is never made again, so a check at the handshake alone let a leaked certificate work for as
     * long as its holder kept calling: the cluster has no revocation, and expiry is what ends a credential.
     */
    @Test
    void callsOnAConnectionMadeWhileItsCertificateWasValidAreRefusedOnceItExpired() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 1)) {
            Path credentials = tmp.resolve("short-lived");
            Instant expires = cluster.ca().issue(Role.READER, "short-lived", credentials, VALIDITY, List.of()).getNotAfter().toInstant();
            StoreClient reader = cluster.client(ClientOptions.defaults().withSameHostPath(false)
                    .withAuthentication(new Authentication.Certificate(Credentials.load(credentials))));
            // Calls every 100 ms until just before the certificate's end, on the one connection, which stays open past it.
            int answered = 0;
            while (Instant.now().isBefore(expires.minusMillis(300))) {
                assertThat(reader.list("anything/")).isEmpty();
                answered++;
                Thread.sleep(100);
            }
            assertThat(answered).as("calls answered while the certificate was valid").isPositive();
            Thread.sleep(Duration.between(Instant.now(), expires).plusMillis(500).toMillis());

            assertThatThrownBy(() -> reader.list("anything/")).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAUTHENTICATED))
                    .hasMessageContaining("short-lived").hasMessageContaining("expired at");
        }
    }
}

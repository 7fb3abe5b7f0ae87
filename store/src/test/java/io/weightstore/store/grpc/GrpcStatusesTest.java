package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

class GrpcStatusesTest {
    @Test
    void aConnectionClosedUnderACallIsUnavailableSoTheCallerMayTryAnotherMaster() {
        StoreException closed = GrpcStatuses.toStoreException(Status.UNKNOWN.withDescription("channel closed")
                .withCause(new ClosedChannelException()).asRuntimeException(), "stat", false);

        assertThat(closed.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
        assertThat(closed.getMessage()).isEqualTo("stat: the connection to the master closed during the call");
    }

    @Test
    void anyOtherUnknownStatusStaysAnInputOutputError() {
        StoreException other = GrpcStatuses.toStoreException(Status.UNKNOWN.withDescription("something else").asRuntimeException(),
                "stat", false);

        assertThat(other.code()).isEqualTo(StoreException.Code.IO);
        assertThat(other.getMessage()).isEqualTo("something else");
    }

    @Test
    void anUnavailableAnswerFromTheMasterItselfIsItsOwnWordsNotAMasterUnavailable() {
        StoreException refused = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("put of x needs 3 nodes up, 2 are")
                .asRuntimeException(GrpcStatuses.answered()), "put x", true);

        assertThat(refused.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
        assertThat(refused.getMessage()).isEqualTo("put of x needs 3 nodes up, 2 are");
    }

    @Test
    void aPlaintextConnectionTheTransportSawResetSuggestsCredentials() {
        StoreException reset = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new IOException("Connection reset by peer")).asRuntimeException(), "stat", true);

        assertThat(reset.getMessage()).startsWith("stat: master unavailable: UNAVAILABLE: io exception (Connection reset by peer)")
                .endsWith("give --credentials DIR (or $WEIGHTSTORE_CREDENTIALS)");
    }

    @Test
    void aTlsFailureNamesTheCertificateChecksReasonNotTheEnginesWrapper() {
        Exception check = new java.security.cert.CertificateException("certificate CN=master was issued by CN=other CA, not by"
                + " this cluster's CA");
        StoreException refused = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new javax.net.ssl.SSLHandshakeException("General OpenSslEngine problem", check)).asRuntimeException(),
                "stat", false);

        assertThat(refused.getMessage()).isEqualTo("stat: master unavailable: TLS: certificate CN=master was issued by CN=other CA,"
                + " not by this cluster's CA");
    }

    @Test
    void onlyTheLeadersOwnRefusalIsTakenAsTheAnswerOfAGroup() {
        StoreException own = GrpcStatuses.toStoreException(GrpcStatuses.toStatus(
                new StoreException(StoreException.Code.UNAVAILABLE, "3 replicas need 3 nodes that are up and not being drained, 2 are")),
                "set replicas", false);
        StoreException steppedDown = GrpcStatuses.toStoreException(GrpcStatuses.toStatus(
                LeaderGate.steppedDown("this master stepped down and serves no metadata: closed", null)), "set replicas", false);
        Metadata followerTrailers = GrpcStatuses.answered();
        followerTrailers.put(GrpcStatuses.LEADER, "127.0.0.1:1");
        StoreException follower = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("not the leader")
                .asRuntimeException(followerTrailers), "set replicas", false);
        StoreException unreachable = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .asRuntimeException(), "set replicas", false);

        assertThat(GrpcStatuses.answeredAsLeader(own)).isTrue();
        assertThat(GrpcStatuses.answeredAsLeader(steppedDown)).isFalse();
        assertThat(GrpcStatuses.answeredAsLeader(follower)).isFalse();
        assertThat(GrpcStatuses.answeredAsLeader(unreachable)).isFalse();
    }
}

package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverBackoffTest {

    @Test
    void whileNoMasterLeadsThePauseDoublesUpToASecond() {
        FailoverBackoff backoff = new FailoverBackoff();
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pauses.add(backoff.pause(false));
        }
        assertThat(pauses).containsExactly(25L, 50L, 100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void aLeaderThatIsNotReadyIsAskedAgainWithin200MsHoweverLongTheCallWaitedForAnElection() {
        FailoverBackoff backoff = new FailoverBackoff();
        for (int i = 0; i < 6; i++) {
            backoff.pause(false);
        }
        assertThat(backoff.pause(true)).isEqualTo(FailoverBackoff.MAX_NOT_READY_MS);
        assertThat(backoff.pause(true)).isEqualTo(FailoverBackoff.MAX_NOT_READY_MS);
        assertThat(backoff.pause(false)).as("an election after it is waited for as before").isEqualTo(FailoverBackoff.MAX_MS);
    }

    @Test
    void aLeaderThatIsNotReadyAtOnceIsAskedAgainSoonAndThenLessOften() {
        FailoverBackoff backoff = new FailoverBackoff();
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            pauses.add(backoff.pause(true));
        }
        assertThat(pauses).containsExactly(25L, 50L, 100L, 200L, 200L, 200L);
    }
}

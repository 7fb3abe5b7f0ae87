package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverBackoffTest {

    private static List<Long> pauses(FailoverBackoff backoff, int count, boolean leaderNotReady) {
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pauses.add(backoff.pause(leaderNotReady));
        }
        return pauses;
    }

    @Test
    void whileNoMasterLeadsThePauseDoublesUpToASecond() {
        assertThat(pauses(new FailoverBackoff(), 8, false)).containsExactly(25L, 50L, 100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void aLeaderThatIsNotReadyIsAskedAgainWithin200MsHoweverLongTheCallWaitedForAnElection() {
        FailoverBackoff backoff = new FailoverBackoff();
        pauses(backoff, 6, false);
        assertThat(pauses(backoff, 2, true)).containsExactly(FailoverBackoff.MAX_NOT_READY_MS, FailoverBackoff.MAX_NOT_READY_MS);
        assertThat(backoff.pause(false)).as("an election after it is waited for as before").isEqualTo(FailoverBackoff.MAX_MS);
    }

    @Test
    void aLeaderThatIsNotReadyAtOnceIsAskedAgainSoonAndThenLessOften() {
        assertThat(pauses(new FailoverBackoff(), 6, true)).containsExactly(25L, 50L, 100L, 200L, 200L, 200L);
    }
}

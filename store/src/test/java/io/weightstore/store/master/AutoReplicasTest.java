package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.ObjectMeta;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How many copies the master keeps of an object whose count is auto, as readers come and go. */
class AutoReplicasTest {
    private static final long COOL_DOWN = 1_000;

    private static ObjectMeta object(int replicas, boolean auto) {
        return new ObjectMeta("k", 10, 10, 10, List.of(), true, Instant.EPOCH, replicas).withReplicas(replicas, auto);
    }

    @Test
    void aFixedCountIgnoresReaders() {
        AutoReplicas auto = new AutoReplicas(2, COOL_DOWN);
        assertThat(auto.target(object(2, false), 40, 8, 0)).isEqualTo(2);
    }

    @Test
    void aCopyPerReadersPerReplicaAtMostOnePerNodeAndNeverBelowTheFloor() {
        AutoReplicas auto = new AutoReplicas(2, COOL_DOWN);
        assertThat(auto.target(object(2, true), 0, 8, 0)).isEqualTo(2);
        assertThat(auto.target(object(2, true), 3, 8, 0)).isEqualTo(2);
        assertThat(auto.target(object(2, true), 7, 8, 0)).isEqualTo(4);
        assertThat(auto.target(object(2, true), 40, 8, 0)).isEqualTo(8);
        assertThat(AutoReplicas.raised(object(2, true), 4)).isTrue();
        assertThat(AutoReplicas.raised(object(2, true), 2)).isFalse();
    }

    @Test
    void whatReadersRaisedStaysForTheCoolDownThenFalls() {
        AutoReplicas auto = new AutoReplicas(2, COOL_DOWN);
        ObjectMeta object = object(1, true);
        assertThat(auto.target(object, 8, 8, 0)).isEqualTo(4);
        assertThat(auto.target(object, 0, 8, COOL_DOWN - 1)).as("readers gone, within the cool-down").isEqualTo(4);
        assertThat(auto.target(object, 0, 8, COOL_DOWN + 1)).as("after it").isEqualTo(1);
    }

    @Test
    void moreReadersRaiseThePeakAgainAndRestartTheCoolDown() {
        AutoReplicas auto = new AutoReplicas(2, COOL_DOWN);
        ObjectMeta object = object(1, true);
        assertThat(auto.target(object, 4, 8, 0)).isEqualTo(2);
        assertThat(auto.target(object, 6, 8, 900)).isEqualTo(3);
        assertThat(auto.target(object, 0, 8, 1_500)).as("cool-down counted from the last raise").isEqualTo(3);
        assertThat(auto.target(object, 0, 8, 1_901)).isEqualTo(1);
    }
}

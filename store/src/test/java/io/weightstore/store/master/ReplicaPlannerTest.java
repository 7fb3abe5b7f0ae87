package io.weightstore.store.master;

import static io.weightstore.store.master.ReplicaPlanner.State.BAD;
import static io.weightstore.store.master.ReplicaPlanner.State.GOOD;
import static io.weightstore.store.master.ReplicaPlanner.State.LEAVING;
import static io.weightstore.store.master.ReplicaPlanner.State.LOST;
import static io.weightstore.store.master.ReplicaPlanner.State.WAITING;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.master.ReplicaPlanner.Held;
import io.weightstore.store.master.ReplicaPlanner.Plan;
import io.weightstore.store.master.ReplicaPlanner.Want;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The rules that decide, per slice, which copies to drop and which copy to make next. */
class ReplicaPlannerTest {
    private static Held held(String node, ReplicaPlanner.State state) {
        return new Held(new ReplicaRef(node, 0), state, false, 0);
    }

    private static Held local(String node, ReplicaPlanner.State state) {
        return new Held(new ReplicaRef(node, 0), state, true, 0);
    }

    private static Plan plan(int target, Held... replicas) {
        return ReplicaPlanner.plan(List.of(replicas), target, List.of());
    }

    @Test
    void aSliceAtItsTargetIsLeftAlone() {
        Plan plan = plan(2, held("a", GOOD), held("b", GOOD));
        assertThat(plan.drops()).isEmpty();
        assertThat(plan.copy()).isEmpty();
        assertThat(plan.belowTarget()).isFalse();
    }

    @Test
    void aCopyOnANodeDownLessThanTheRepairDelayCountsAndNothingIsCopied() {
        Plan plan = plan(2, held("a", GOOD), held("b", WAITING));
        assertThat(plan.copy()).isEmpty();
        assertThat(plan.drops()).isEmpty();
        assertThat(plan.belowTarget()).isFalse();
        assertThat(plan.waiting()).as("shown as waiting, so the store reads DEGRADED meanwhile").isTrue();
        assertThat(plan(2, held("a", GOOD), held("b", GOOD)).waiting()).isFalse();
    }

    @Test
    void aLostCopyIsMadeAgainInItsPlaceAndDroppedOnlyOnceTheTargetIsMetWithoutIt() {
        assertThat(plan(2, held("a", GOOD), held("b", LOST)).copy())
                .contains(new Want.Move(new ReplicaRef("b", 0), CopyInFlight.Reason.LOST));
        Plan enough = plan(2, held("a", GOOD), held("b", LOST), held("c", GOOD));
        assertThat(enough.drops()).containsExactly(new ReplicaRef("b", 0));
        assertThat(enough.copy()).isEmpty();
    }

    @Test
    void aBadCopyIsRewrittenInPlaceFirst() {
        Plan plan = plan(2, held("a", BAD), held("b", GOOD));
        assertThat(plan.copy()).contains(new Want.Rewrite(new ReplicaRef("a", 0)));
        assertThat(plan.bad()).isEqualTo(1);
        assertThat(plan.drops()).isEmpty();
    }

    @Test
    void aBadCopyBeyondTheTargetIsDroppedNotRewritten() {
        Plan plan = plan(2, held("a", BAD), held("b", GOOD), held("c", GOOD));
        assertThat(plan.drops()).containsExactly(new ReplicaRef("a", 0));
        assertThat(plan.copy()).isEmpty();
    }

    @Test
    void aDrainedCopyIsCopiedElsewhereBeforeItIsDropped() {
        assertThat(plan(2, held("a", GOOD), held("b", LEAVING)).copy())
                .contains(new Want.Move(new ReplicaRef("b", 0), CopyInFlight.Reason.DRAIN));
        assertThat(plan(2, held("a", GOOD), held("b", LEAVING)).drops()).isEmpty();
        assertThat(plan(2, held("a", GOOD), held("b", LEAVING), held("c", GOOD)).drops()).containsExactly(new ReplicaRef("b", 0));
    }

    @Test
    void aCopyThatStillServesIsNotDroppedWhileTheOnlyOtherCopiesWaitForTheirNodes() {
        Plan drained = plan(1, held("a", LEAVING), held("b", WAITING));
        assertThat(drained.drops()).as("the drained copy is the only one that serves reads now").isEmpty();
        assertThat(drained.unreadable()).isFalse();
        assertThat(plan(1, held("a", BAD), held("b", WAITING)).drops()).as("a bad copy may still be rewritten from b").isEmpty();
        assertThat(plan(1, held("a", LEAVING), held("b", WAITING), held("c", GOOD)).drops()).as("c serves: a goes, and b is trimmed")
                .containsExactly(new ReplicaRef("a", 0), new ReplicaRef("b", 0));
    }

    @Test
    void aRaisedTargetAddsACopy() {
        Plan plan = plan(3, held("a", GOOD), held("b", GOOD));
        assertThat(plan.copy()).contains(new Want.Add());
        assertThat(plan.belowTarget()).isTrue();
    }

    @Test
    void aLoweredTargetTrimsCopiesOnNodesThatAreDownFirstThenTheFullestNodes() {
        List<Held> replicas = List.of(new Held(new ReplicaRef("a", 0), GOOD, false, 10), new Held(new ReplicaRef("b", 0), GOOD, false, 30),
                new Held(new ReplicaRef("c", 0), WAITING, false, 0), new Held(new ReplicaRef("d", 0), GOOD, false, 20));
        Plan plan = ReplicaPlanner.plan(replicas, 2, List.of());
        assertThat(plan.drops()).containsExactly(new ReplicaRef("c", 0), new ReplicaRef("b", 0));
        assertThat(plan.copy()).isEmpty();
        assertThat(plan.waiting()).as("the copy on the node that is down was trimmed").isFalse();
    }

    @Test
    void aLocalCopyIsNeverTrimmedAndANodeThatKeepsOneGetsIt() {
        Plan trimmed = plan(1, local("a", GOOD), held("b", GOOD), held("c", GOOD));
        assertThat(trimmed.drops()).containsExactly(new ReplicaRef("b", 0));
        Plan wanted = ReplicaPlanner.plan(List.of(held("b", GOOD), held("c", GOOD)), 2, List.of("a"));
        assertThat(wanted.copy()).contains(new Want.AddOn("a"));
        Plan already = ReplicaPlanner.plan(List.of(local("a", GOOD), held("c", GOOD)), 2, List.of("a"));
        assertThat(already.copy()).isEmpty();
    }

    @Test
    void aSliceWithNoCopyThatCanServeSaysSo() {
        assertThat(plan(2, held("a", BAD), held("b", WAITING)).unreadable()).isTrue();
        assertThat(plan(2, held("a", LEAVING), held("b", LOST)).unreadable()).isFalse();
    }

    /**
     * Whatever the replicas and target, a plan never drops a slice below one good copy, nor the last copy that serves reads,
     * nor below its target of good copies.
     */
    @Property
    void nothingDropsASliceBelowItsGoodCopies(@ForAll("slices") List<Held> replicas, @ForAll("targets") int target) {
        Plan plan = ReplicaPlanner.plan(replicas, target, List.of());
        List<Held> kept = new ArrayList<>(replicas);
        kept.removeIf(h -> plan.drops().contains(h.replica()));
        long goodBefore = replicas.stream().filter(h -> h.state() == GOOD).count();
        long goodAfter = kept.stream().filter(h -> h.state() == GOOD).count();
        if (goodBefore > 0) {
            assertThat(goodAfter).isPositive();
        }
        if (replicas.stream().anyMatch(Held::readable)) {
            assertThat(kept).as("copies that serve reads, kept of %s", replicas).anyMatch(Held::readable);
        }
        long countingAfter = kept.stream().filter(Held::counts).count();
        long countingBefore = replicas.stream().filter(Held::counts).count();
        assertThat(countingAfter).isGreaterThanOrEqualTo(Math.min(countingBefore, target));
        assertThat(plan.drops()).doesNotHaveDuplicates();
    }

    @Provide
    Arbitrary<List<Held>> slices() {
        Arbitrary<Held> one = Combinators.combine(Arbitraries.of(ReplicaPlanner.State.class), Arbitraries.of(true, false),
                Arbitraries.longs().between(0, 100)).as((state, local, used) -> new Held(new ReplicaRef("?", 0), state, local, used));
        return one.list().ofMinSize(1).ofMaxSize(6).map(list -> {
            List<Held> named = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Held h = list.get(i);
                named.add(new Held(new ReplicaRef("n" + i, i), h.state(), h.local(), h.nodeUsed()));
            }
            return named;
        });
    }

    @Provide
    Arbitrary<Integer> targets() {
        return Arbitraries.integers().between(1, 5);
    }
}

package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The order in which a batch's pieces go out: taking turns between the nodes that serve them. */
class ReplicaReaderTurnsTest {
    @Test
    void consecutivePiecesGoToDifferentNodesWhileSeveralHaveWork() {
        // Pieces in file order, named node:piece; four 16 MiB pieces of each 64 MiB slice on one node.
        List<String> pieces = List.of("a:1", "a:2", "a:3", "a:4", "b:1", "b:2", "b:3", "b:4", "c:1", "c:2", "d:1");
        assertThat(ReplicaReader.takingTurns(pieces, p -> p.substring(0, 1)))
                .containsExactly("a:1", "b:1", "c:1", "d:1", "a:2", "b:2", "c:2", "a:3", "b:3", "a:4", "b:4");
    }

    @Test
    void oneNodeKeepsTheOrder() {
        assertThat(ReplicaReader.takingTurns(List.of(3, 1, 2), p -> "a")).containsExactly(3, 1, 2);
        assertThat(ReplicaReader.takingTurns(List.<Integer>of(), p -> "a")).isEmpty();
    }
}

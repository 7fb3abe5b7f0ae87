package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The master's node record across versions: a drain is a field of the node's message, which older masters skip. */
class StoredNodeRecordTest {
    private static final NodeInfo NODE = new NodeInfo("n1", new Endpoint("10.0.0.1", 7001), "/pools/n1.pool",
            UUID.fromString("00000000-0000-0000-0000-000000000001"), 1L << 30);

    @Test
    void aRecordWrittenBeforeDrainsWereRecordedReadsAsNotDraining() throws StoreException {
        byte[] old = Protos.toProto(NODE).toByteArray();

        assertThat(Protos.decodeNode(old)).isEqualTo(new StoredNode(NODE, false));
    }

    @Test
    void aDrainingRecordReadsBackDrainingWithTheNodeItNamesUnchanged() throws Exception {
        byte[] record = Protos.encode(new StoredNode(NODE, true));

        assertThat(Protos.decodeNode(record)).isEqualTo(new StoredNode(NODE, true));
        assertThat(Protos.fromProto(io.weightstore.store.proto.NodeInfo.parseFrom(record))).isEqualTo(NODE);
    }
}

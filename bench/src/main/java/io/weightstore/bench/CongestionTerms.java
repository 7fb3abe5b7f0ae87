package io.weightstore.bench;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.wire.TcpSockets;
import java.util.Optional;

/**
 * The TCP congestion control a bench's store sends under (the data plane's default, which its nodes and the gateway share),
 * which its socket ceilings take too, and the note for peers that cannot choose theirs and send under the host's.
 */
final class CongestionTerms {
    private CongestionTerms() {}

    static CongestionControl store() {
        return ClientOptions.defaults().congestionControl();
    }

    /** Said when {@code peers} send under another algorithm than {@code ours}: the run then favours one side. */
    static Optional<String> unequal(String peers, String ours) {
        String host = TcpSockets.hostDefault();
        CongestionControl store = store();
        if (store.isHostDefault() || host.equals(store.algorithm())) {
            return Optional.empty();
        }
        // Under BBR without fq they pay for its pacing, and the store does not.
        return Optional.of("TCP congestion control: " + peers + " under the host's (" + host + "), " + ours + " under " + store
                + "; for equal terms, sysctl -w net.ipv4.tcp_congestion_control=" + store + " during the run");
    }
}

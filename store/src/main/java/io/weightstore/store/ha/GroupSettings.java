package io.weightstore.store.ha;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How one master joins a group.
 *
 * @param etcd the etcd members' client URLs ({@code http://host:2379}; a bare HOST:PORT means http)
 * @param cluster the group's name: its keys live under {@code /weightstore/<cluster>/}
 * @param leaderLease how long a leader that stopped renewing keeps the leadership: the bound on detecting its loss
 * @param etcdTimeout deadline of each etcd call
 * @param advertise HOST:PORT clients reach this master at; empty for this host's name and the port listened on
 */
public record GroupSettings(List<URI> etcd, String cluster, Duration leaderLease, Duration etcdTimeout, Optional<String> advertise) {
    public static final String DEFAULT_CLUSTER = "default";
    public static final Duration DEFAULT_LEADER_LEASE = Duration.ofSeconds(2);
    public static final Duration DEFAULT_ETCD_TIMEOUT = Duration.ofSeconds(3);

    public GroupSettings {
        etcd = List.copyOf(etcd);
        if (etcd.isEmpty()) {
            throw new IllegalArgumentException("a group of masters needs at least one etcd endpoint");
        }
        new ClusterKeys(cluster); // checks the name
        if (leaderLease.toMillis() < 1000 || leaderLease.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("the leader lease must be whole seconds, at least 1 (etcd counts leases in seconds): "
                    + leaderLease);
        }
    }

    /** {@code endpoints} as {@code --etcd} takes them: URLs (or HOST:PORT) separated by commas. */
    public static GroupSettings of(String endpoints, String cluster) {
        List<URI> uris = new ArrayList<>();
        for (String endpoint : endpoints.split(",", -1)) {
            String text = endpoint.strip();
            if (text.isEmpty()) {
                throw new IllegalArgumentException("empty etcd endpoint in '" + endpoints + "'");
            }
            URI uri = URI.create(text.contains("://") ? text : "http://" + text);
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("etcd endpoint '" + text + "' needs a host and a port, e.g. http://127.0.0.1:2379");
            }
            uris.add(uri);
        }
        return new GroupSettings(uris, cluster, DEFAULT_LEADER_LEASE, DEFAULT_ETCD_TIMEOUT, Optional.empty());
    }

    public GroupSettings withAdvertise(String hostPort) {
        return new GroupSettings(etcd, cluster, leaderLease, etcdTimeout, Optional.of(hostPort));
    }
}

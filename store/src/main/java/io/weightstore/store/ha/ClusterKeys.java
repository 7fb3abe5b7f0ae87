package io.weightstore.store.ha;

import io.etcd.jetcd.ByteSequence;
import java.util.regex.Pattern;

/**
 * Where a group of masters keeps its state in etcd, all under {@code /weightstore/<cluster>/}: the
 * leader key, one key per live master, and the metadata records under {@code meta/}, one prefix per
 * kind. Several clusters can share one etcd.
 */
record ClusterKeys(String cluster) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    static final String OBJECT = "o/";
    static final String NODE = "n/";
    static final String PENDING = "p/";
    static final String LOCK = "l/";
    static final String LEASE = "r/";
    static final String RETIRED = "t/";
    static final String BAD = "b/";
    static final String READ = "a/";

    ClusterKeys {
        if (!NAME.matcher(cluster).matches()) {
            throw new IllegalArgumentException("cluster name '" + cluster + "' must match " + NAME.pattern());
        }
    }

    String root() {
        return "/weightstore/" + cluster + "/";
    }

    /** Held by the leader, attached to its etcd lease; its create revision is the leader's fencing token. */
    ByteSequence leader() {
        return Etcd.bytes(root() + "leader");
    }

    String members() {
        return root() + "members/";
    }

    ByteSequence member(String address) {
        return Etcd.bytes(members() + address);
    }

    String meta() {
        return root() + "meta/";
    }

    ByteSequence record(String kind, String name) {
        return Etcd.bytes(meta() + kind + name);
    }
}

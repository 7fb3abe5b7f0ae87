package io.weightstore.store.security;

import java.util.regex.Pattern;

/**
 * Who a peer is: a name unique in the cluster for its role (a node's id, a user or service name) and its role.
 * Certificates carry it as described in {@link IdentityCertificates}.
 */
public record Identity(String name, Role role) {
    /** Names fit file names, node ids and certificate subjects without escaping. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    public Identity {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name=" + name + " must match " + NAME.pattern());
        }
        if (role == null) {
            throw new IllegalArgumentException("role=null: an identity needs a role, one of " + Role.labels());
        }
    }

    @Override
    public String toString() {
        return role.label() + " " + name;
    }
}

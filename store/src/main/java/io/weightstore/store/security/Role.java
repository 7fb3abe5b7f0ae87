package io.weightstore.store.security;

import static io.weightstore.store.security.Permission.DELETE;
import static io.weightstore.store.security.Permission.FORCE_DELETE;
import static io.weightstore.store.security.Permission.HEARTBEAT;
import static io.weightstore.store.security.Permission.LEASE;
import static io.weightstore.store.security.Permission.LIST;
import static io.weightstore.store.security.Permission.LOCK;
import static io.weightstore.store.security.Permission.MANAGE_NODES;
import static io.weightstore.store.security.Permission.MASTER_SYNC;
import static io.weightstore.store.security.Permission.PIN;
import static io.weightstore.store.security.Permission.PUT;
import static io.weightstore.store.security.Permission.READ;
import static io.weightstore.store.security.Permission.RECLAIM;
import static io.weightstore.store.security.Permission.REGISTER;
import static io.weightstore.store.security.Permission.REPLICATE;
import static io.weightstore.store.security.Permission.STAT;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an identity is for, and so what it may do. Each role lists every permission it has, in full, so the table
 * reads as it is enforced: nothing is inherited.
 *
 * <p>{@code ADMIN} has every client operation but none of the node or master protocol: an admin credential that
 * leaks cannot register a rogue node, nor receive replicas as one.
 */
public enum Role {
    MASTER(READ, REPLICATE, RECLAIM, MASTER_SYNC),
    NODE(REGISTER, HEARTBEAT),
    WRITER(STAT, LIST, READ, LEASE, PUT, PIN, LOCK, DELETE),
    READER(STAT, LIST, READ, LEASE),
    ADMIN(STAT, LIST, READ, LEASE, PUT, PIN, LOCK, DELETE, FORCE_DELETE, MANAGE_NODES);

    private final Set<Permission> permissions;

    Role(Permission... permissions) {
        this.permissions = EnumSet.copyOf(Arrays.asList(permissions));
    }

    public boolean allows(Permission permission) {
        return permissions.contains(permission);
    }

    /**
     * Whether a bearer token may carry this role: nodes and masters prove themselves with certificates, to which the data
     * plane's TLS and the nodes' read grants are bound; tokens are for reader, writer and admin clients.
     */
    public boolean takesTokens() {
        return this != MASTER && this != NODE;
    }

    /** The name used on the command line and in certificates: {@code master}, {@code node} … */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named by {@code label}, in any case. */
    public static Role parse(String label) {
        for (Role role : values()) {
            if (role.label().equalsIgnoreCase(label)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role=" + label + " is not one of " + labels());
    }

    /** Every role's label, for messages and help: {@code master, node, writer, reader, admin}. */
    public static String labels() {
        return Arrays.stream(values()).map(Role::label).collect(Collectors.joining(", "));
    }
}

package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoleTest {
    /** The table of issue 13, written out again here so a change to Role has to be made twice on purpose. */
    private static final Map<Role, Set<Permission>> ISSUE_13 = Map.of(
            Role.READER, EnumSet.of(Permission.STAT, Permission.LIST, Permission.READ, Permission.LEASE),
            Role.WRITER, EnumSet.of(Permission.STAT, Permission.LIST, Permission.READ, Permission.LEASE,
                    Permission.PUT, Permission.PIN, Permission.LOCK, Permission.DELETE),
            Role.ADMIN, EnumSet.of(Permission.STAT, Permission.LIST, Permission.READ, Permission.LEASE,
                    Permission.PUT, Permission.PIN, Permission.LOCK, Permission.DELETE,
                    Permission.FORCE_DELETE, Permission.MANAGE_NODES),
            Role.NODE, EnumSet.of(Permission.REGISTER, Permission.HEARTBEAT),
            Role.MASTER, EnumSet.of(Permission.READ, Permission.REPLICATE, Permission.RECLAIM, Permission.MASTER_SYNC));

    @Test
    void everyRoleAllowsExactlyItsPermissions() {
        assertThat(ISSUE_13.keySet()).containsExactlyInAnyOrder(Role.values());
        for (Role role : Role.values()) {
            for (Permission permission : Permission.values()) {
                assertThat(role.allows(permission))
                        .as("%s allows %s", role, permission)
                        .isEqualTo(ISSUE_13.get(role).contains(permission));
            }
        }
    }

    @Test
    void onlyNodesRegisterAndOnlyAdminsForceDeleteOrManageNodes() {
        for (Role role : Role.values()) {
            assertThat(role.allows(Permission.REGISTER)).as("%s registers", role).isEqualTo(role == Role.NODE);
            assertThat(role.allows(Permission.FORCE_DELETE)).as("%s force-deletes", role).isEqualTo(role == Role.ADMIN);
            assertThat(role.allows(Permission.MANAGE_NODES)).as("%s manages nodes", role).isEqualTo(role == Role.ADMIN);
        }
    }

    @Test
    void parsesLabelsInAnyCaseAndNamesTheChoicesOtherwise() {
        assertThat(Role.parse("node")).isEqualTo(Role.NODE);
        assertThat(Role.parse("ADMIN")).isEqualTo(Role.ADMIN);
        assertThat(Role.NODE.label()).isEqualTo("node");
        assertThatThrownBy(() -> Role.parse("root"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("role=root is not one of master, node, writer, reader, admin");
    }

    @Test
    void identityNamesAreRestricted() {
        assertThat(new Identity("node-1.rack_2", Role.NODE)).hasToString("node node-1.rack_2");
        assertThat(new Identity("a".repeat(128), Role.READER).name()).hasSize(128);
        for (String bad : new String[] {"", "-x", ".x", "a b", "a/b", "a".repeat(129), "é"}) {
            assertThatThrownBy(() -> new Identity(bad, Role.READER))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name=" + bad + " must match");
        }
    }
}

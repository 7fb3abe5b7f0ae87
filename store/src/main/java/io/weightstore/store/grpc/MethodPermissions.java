package io.weightstore.store.grpc;

import io.weightstore.store.security.Permission;
import java.util.Map;
import java.util.Optional;

/**
 * The permission each master RPC needs. Removing with force needs more ({@link Permission#FORCE_DELETE}),
 * and node calls must name the caller's own node; the service checks those on the request itself.
 */
final class MethodPermissions {
    private static final Map<String, Permission> BY_METHOD = Map.ofEntries(
            Map.entry("RegisterNode", Permission.REGISTER),
            Map.entry("Heartbeat", Permission.HEARTBEAT),
            // What a node tells its master about the work it was given, as in its heartbeats: only under its own id.
            Map.entry("FinishCopy", Permission.HEARTBEAT),
            Map.entry("PutStart", Permission.PUT),
            Map.entry("PutEnd", Permission.PUT),
            Map.entry("PutAbort", Permission.PUT),
            Map.entry("AbortPutsOf", Permission.PUT),
            Map.entry("Stat", Permission.STAT),
            Map.entry("Locate", Permission.LEASE),
            Map.entry("RenewLease", Permission.LEASE),
            Map.entry("ReleaseLease", Permission.LEASE),
            Map.entry("LocateAll", Permission.LEASE),
            Map.entry("ReleaseLeases", Permission.LEASE),
            Map.entry("RenewLeases", Permission.LEASE),
            Map.entry("Remove", Permission.DELETE),
            Map.entry("RemoveAll", Permission.DELETE),
            Map.entry("List", Permission.LIST),
            Map.entry("TryLock", Permission.LOCK),
            Map.entry("RenewLock", Permission.LOCK),
            Map.entry("ReleaseLock", Permission.LOCK),
            Map.entry("Status", Permission.LIST),
            Map.entry("Room", Permission.LIST),
            // Repairs write copies of other writers' slices, and forgetting drops a node's replicas: both are node management.
            Map.entry("RepairStart", Permission.MANAGE_NODES),
            Map.entry("RepairEnd", Permission.MANAGE_NODES),
            Map.entry("RepairAbort", Permission.MANAGE_NODES),
            Map.entry("ForgetNode", Permission.MANAGE_NODES),
            Map.entry("SetReplicas", Permission.MANAGE_NODES),
            Map.entry("DrainNode", Permission.MANAGE_NODES),
            // A reader asks for a copy on the node of its own host, so its next load reads memory there: what it may
            // read anyway, placed only where the node has room below the high watermark.
            Map.entry("KeepLocalCopies", Permission.LEASE),
            // Server reflection (grpcurl) describes the API; any caller of the cluster may read it.
            Map.entry("ServerReflectionInfo", Permission.LIST));

    private MethodPermissions() {}

    /** The permission {@code fullMethodName} ("package.Service/Method") needs; empty for a method this table does not know. */
    static Optional<Permission> of(String fullMethodName) {
        return Optional.ofNullable(BY_METHOD.get(fullMethodName.substring(fullMethodName.lastIndexOf('/') + 1)));
    }
}

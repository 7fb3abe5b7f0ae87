package io.weightstore.store.api;

import java.util.UUID;

/**
 * A storage node as it registers: its id, data-plane endpoint, pool file (path and identity, so a
 * client on the same host can map it instead of using the socket) and capacity.
 */
public record NodeInfo(String nodeId, Endpoint endpoint, String poolPath, UUID poolUuid, long capacity) {}

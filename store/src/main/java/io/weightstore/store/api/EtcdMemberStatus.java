package io.weightstore.store.api;

/**
 * One member of the etcd cluster behind a group of masters, as the leader sees it.
 *
 * @param error why the member did not answer, or empty when it is healthy
 */
public record EtcdMemberStatus(String endpoint, boolean healthy, boolean leader, String version, long dbSizeBytes, String error) {}

package io.weightstore.store.api;

/**
 * A copy the master asks a node to make of one slice, from another node: read {@code length}
 * bytes at {@code sourceOffset} of {@code source}'s pool, check every block against {@code crcs}
 * as it arrives, write them at {@code targetOffset} of this node's pool, check them there again,
 * and report with {@link MasterApi#finishCopy}. The master commits the copy into the object's
 * metadata only then.
 *
 * @param readGrant on a secure cluster, the master's grant to read exactly that range of the
 *     source's pool, sealed for the source; a node has no other way to read another's bytes
 */
public record CopyTask(String taskId, String key, int slice, long length, int checksumBlockSize, BlockCrcs crcs, NodeInfo source,
        long sourceOffset, long targetOffset, Ticket readGrant) {
    public CopyTask withReadGrant(Ticket grant) {
        return new CopyTask(taskId, key, slice, length, checksumBlockSize, crcs, source, sourceOffset, targetOffset, grant);
    }
}

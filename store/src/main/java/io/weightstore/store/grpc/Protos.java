package io.weightstore.store.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.CopyProgress;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.ScrubTask;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.proto.BadCopyRecord;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.LeaseRecord;
import io.weightstore.store.proto.ReadTimeRecord;
import io.weightstore.store.proto.LockRecord;
import io.weightstore.store.proto.PendingPut;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.RepairStartResponse;
import io.weightstore.store.proto.Replica;
import io.weightstore.store.proto.RetiredRecord;
import io.weightstore.store.proto.Slice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The one place where domain records and protobuf messages meet: the gRPC edge, and the bytes the
 * master persists. Nothing outside this package sees a generated message.
 */
public final class Protos {
    private Protos() {}

    // ---- objects

    static io.weightstore.store.proto.ObjectMeta toProto(ObjectMeta object) {
        var builder = io.weightstore.store.proto.ObjectMeta.newBuilder().setKey(object.key()).setSize(object.size())
                .setSliceSize(object.sliceSize()).setChecksumBlockSize(object.checksumBlockSize()).setPinned(object.pinned())
                .setCreatedMs(object.createdAt().toEpochMilli()).setReplicas(object.replicas()).setOwner(object.owner())
                .setAutoReplicas(object.autoReplicas()).addAllLocalCopies(object.localCopies());
        for (SliceMeta slice : object.slices()) {
            Slice.Builder s = Slice.newBuilder().setOffset(slice.offset()).setLength(slice.length());
            slice.replicas().forEach(r -> s.addReplicas(Replica.newBuilder().setNodeId(r.nodeId()).setOffset(r.offset())));
            for (int crc : slice.crcs().toArray()) {
                s.addBlockCrcs(crc);
            }
            builder.addSlices(s);
        }
        return builder.build();
    }

    static ObjectMeta fromProto(io.weightstore.store.proto.ObjectMeta object) {
        List<SliceMeta> slices = object.getSlicesList().stream().map(s -> new SliceMeta(s.getOffset(), s.getLength(),
                s.getReplicasList().stream().map(r -> new ReplicaRef(r.getNodeId(), r.getOffset())).toList(),
                crcs(s.getBlockCrcsList()))).toList();
        return new ObjectMeta(object.getKey(), object.getSize(), object.getSliceSize(), object.getChecksumBlockSize(), slices,
                object.getPinned(), Instant.ofEpochMilli(object.getCreatedMs()), object.getReplicas(), object.getOwner(),
                object.getAutoReplicas(), object.getLocalCopiesList());
    }

    private static BlockCrcs crcs(List<Integer> crcs) {
        return BlockCrcs.of(crcs.stream().mapToInt(Integer::intValue).toArray());
    }

    private static List<Integer> crcs(BlockCrcs crcs) {
        return Arrays.stream(crcs.toArray()).boxed().toList();
    }

    static io.weightstore.store.proto.SliceChecksums toProto(BlockCrcs crcs) {
        var builder = io.weightstore.store.proto.SliceChecksums.newBuilder();
        for (int crc : crcs.toArray()) {
            builder.addBlockCrcs(crc);
        }
        return builder.build();
    }

    static BlockCrcs fromProto(io.weightstore.store.proto.SliceChecksums crcs) {
        return crcs(crcs.getBlockCrcsList());
    }

    // ---- nodes

    static io.weightstore.store.proto.NodeInfo toProto(NodeInfo node) {
        return io.weightstore.store.proto.NodeInfo.newBuilder().setNodeId(node.nodeId()).setHost(node.endpoint().host())
                .setPort(node.endpoint().port()).setPoolPath(node.poolPath()).setPoolUuid(node.poolUuid().toString())
                .setCapacity(node.capacity()).build();
    }

    static NodeInfo fromProto(io.weightstore.store.proto.NodeInfo node) throws StoreException {
        try {
            return new NodeInfo(node.getNodeId(), new Endpoint(node.getHost(), node.getPort()), node.getPoolPath(),
                    UUID.fromString(node.getPoolUuid()), node.getCapacity());
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "node " + node.getNodeId() + ": " + e.getMessage(), e);
        }
    }

    static io.weightstore.store.proto.NodeStatus toProto(NodeStatus node) {
        return io.weightstore.store.proto.NodeStatus.newBuilder().setInfo(toProto(node.info())).setUsed(node.used())
                .setUp(node.up()).setLastHeartbeatMs(node.lastHeartbeat().toEpochMilli()).setLoad(toProto(node.load()))
                .setDraining(node.draining()).build();
    }

    static NodeStatus fromProto(io.weightstore.store.proto.NodeStatus node) throws StoreException {
        return new NodeStatus(fromProto(node.getInfo()), node.getUsed(), node.getUp(), Instant.ofEpochMilli(node.getLastHeartbeatMs()),
                fromProto(node.getLoad()), node.getDraining());
    }

    static io.weightstore.store.proto.NodeLoad toProto(NodeLoad load) {
        return io.weightstore.store.proto.NodeLoad.newBuilder().setBytesServed(load.bytesServed()).setConnections(load.connections())
                .setBytesScrubbed(load.bytesScrubbed()).setBytesCopied(load.bytesCopied()).build();
    }

    static NodeLoad fromProto(io.weightstore.store.proto.NodeLoad load) {
        return new NodeLoad(load.getBytesServed(), load.getConnections(), load.getBytesScrubbed(), load.getBytesCopied());
    }

    // ---- a node's heartbeat, and the master's orders

    static HeartbeatRequest toProto(NodeReport report) {
        HeartbeatRequest.Builder request = HeartbeatRequest.newBuilder().setNodeId(report.nodeId()).setLoad(toProto(report.load()))
                .setScrubRoom(report.scrubRoom());
        report.copies().forEach(c -> request.addCopies(io.weightstore.store.proto.CopyProgress.newBuilder().setTaskId(c.taskId())
                .setBytesDone(c.bytesDone())));
        report.badCopies().forEach(f -> request.addBadCopies(io.weightstore.store.proto.ScrubFinding.newBuilder().setKey(f.key())
                .setCreatedMs(f.version().toEpochMilli()).setSlice(f.slice()).setOffset(f.offset()).setProblem(f.problem())));
        return request.build();
    }

    static NodeReport fromProto(HeartbeatRequest request) {
        return new NodeReport(request.getNodeId(), fromProto(request.getLoad()),
                request.getCopiesList().stream().map(c -> new CopyProgress(c.getTaskId(), c.getBytesDone())).toList(),
                request.getBadCopiesList().stream().map(f -> new ScrubFinding(f.getKey(), Instant.ofEpochMilli(f.getCreatedMs()),
                        f.getSlice(), f.getOffset(), f.getProblem())).toList(),
                request.getScrubRoom());
    }

    static HeartbeatResponse toProto(NodeOrders orders) {
        HeartbeatResponse.Builder response = HeartbeatResponse.newBuilder().setKnown(orders.known())
                .setCopyBytesPerSecond(orders.copyBytesPerSecond());
        for (CopyTask task : orders.copies()) {
            response.addCopies(io.weightstore.store.proto.CopyTask.newBuilder().setTaskId(task.taskId()).setKey(task.key())
                    .setSlice(task.slice()).setLength(task.length()).setChecksumBlockSize(task.checksumBlockSize())
                    .addAllBlockCrcs(crcs(task.crcs())).setSource(toProto(task.source())).setSourceOffset(task.sourceOffset())
                    .setTargetOffset(task.targetOffset()).setReadGrant(ByteString.copyFrom(task.readGrant().bytes())));
        }
        for (ScrubTask task : orders.scrub()) {
            response.addScrub(io.weightstore.store.proto.ScrubTask.newBuilder().setKey(task.key())
                    .setCreatedMs(task.version().toEpochMilli()).setSlice(task.slice()).setOffset(task.offset())
                    .setLength(task.length()).setChecksumBlockSize(task.checksumBlockSize()).addAllBlockCrcs(crcs(task.crcs())));
        }
        return response.build();
    }

    static NodeOrders fromProto(HeartbeatResponse response) throws StoreException {
        List<CopyTask> copies = new ArrayList<>();
        for (var task : response.getCopiesList()) {
            copies.add(new CopyTask(task.getTaskId(), task.getKey(), task.getSlice(), task.getLength(), task.getChecksumBlockSize(),
                    crcs(task.getBlockCrcsList()), fromProto(task.getSource()), task.getSourceOffset(), task.getTargetOffset(),
                    Ticket.of(task.getReadGrant().toByteArray())));
        }
        List<ScrubTask> scrub = response.getScrubList().stream().map(t -> new ScrubTask(t.getKey(),
                Instant.ofEpochMilli(t.getCreatedMs()), t.getSlice(), t.getOffset(), t.getLength(), t.getChecksumBlockSize(),
                crcs(t.getBlockCrcsList()))).toList();
        return new NodeOrders(response.getKnown(), copies, scrub, response.getCopyBytesPerSecond());
    }

    // ---- how the replicas stand

    static io.weightstore.store.proto.ReplicationStatus toProto(ReplicationStatus status) {
        var builder = io.weightstore.store.proto.ReplicationStatus.newBuilder().setSlicesBelowTarget(status.slicesBelowTarget())
                .setSlicesWaiting(status.slicesWaiting())
                .setSlicesWithoutGoodCopy(status.slicesWithoutGoodCopy()).setBadCopies(status.badCopies())
                .setRepairAfterMs(status.repairAfter().toMillis());
        status.copies().forEach(c -> builder.addCopies(io.weightstore.store.proto.CopyInFlight.newBuilder().setKey(c.key())
                .setSlice(c.slice()).setFromNodeId(c.from()).setToNodeId(c.to()).setReason(c.reason().name()).setLength(c.length())
                .setBytesDone(c.bytesDone())));
        return builder.build();
    }

    static ReplicationStatus fromProto(io.weightstore.store.proto.ReplicationStatus status) throws StoreException {
        List<CopyInFlight> copies = new ArrayList<>();
        for (var c : status.getCopiesList()) {
            CopyInFlight.Reason reason;
            try {
                reason = CopyInFlight.Reason.valueOf(c.getReason());
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreException.Code.PROTOCOL, "the master named an unknown copy reason " + c.getReason());
            }
            copies.add(new CopyInFlight(c.getKey(), c.getSlice(), c.getFromNodeId(), c.getToNodeId(), reason, c.getLength(),
                    c.getBytesDone()));
        }
        return new ReplicationStatus(status.getSlicesBelowTarget(), status.getSlicesWaiting(), status.getSlicesWithoutGoodCopy(), status.getBadCopies(), copies,
                Duration.ofMillis(status.getRepairAfterMs()));
    }

    static Map<String, NodeStatus> nodeStatuses(List<io.weightstore.store.proto.NodeStatus> nodes) throws StoreException {
        Map<String, NodeStatus> byId = new LinkedHashMap<>();
        for (var node : nodes) {
            NodeStatus status = fromProto(node);
            byId.put(status.nodeId(), status);
        }
        return byId;
    }

    static Map<String, NodeInfo> nodeInfos(List<io.weightstore.store.proto.NodeInfo> nodes) throws StoreException {
        Map<String, NodeInfo> byId = new LinkedHashMap<>();
        for (var node : nodes) {
            NodeInfo info = fromProto(node);
            byId.put(info.nodeId(), info);
        }
        return byId;
    }

    // ---- tickets

    /** The leases of a request that names several, each as {@code ReleaseLease} names one. */
    static List<HeldLease> heldLeases(List<ReleaseLeaseRequest> leases) {
        return leases.stream().map(l -> new HeldLease(l.getKey(), l.getLeaseId())).toList();
    }

    static List<ReleaseLeaseRequest> toProto(List<HeldLease> leases) {
        return leases.stream().map(l -> ReleaseLeaseRequest.newBuilder().setKey(l.key()).setLeaseId(l.leaseId()).build()).toList();
    }

    static io.weightstore.store.proto.NodeTicket toProto(String nodeId, Ticket ticket) {
        return io.weightstore.store.proto.NodeTicket.newBuilder().setNodeId(nodeId).setTicket(ByteString.copyFrom(ticket.bytes()))
                .build();
    }

    static Map<String, Ticket> tickets(List<io.weightstore.store.proto.NodeTicket> tickets) {
        Map<String, Ticket> byNode = new LinkedHashMap<>();
        tickets.forEach(t -> byNode.put(t.getNodeId(), Ticket.of(t.getTicket().toByteArray())));
        return byNode;
    }

    static Map<ReplicaRef, Ticket> grants(List<io.weightstore.store.proto.ReplicaGrant> grants) {
        Map<ReplicaRef, Ticket> byReplica = new LinkedHashMap<>();
        grants.forEach(g -> byReplica.put(new ReplicaRef(g.getNodeId(), g.getOffset()), Ticket.of(g.getGrant().toByteArray())));
        return byReplica;
    }

    // ---- repairs

    static RepairStartResponse toProto(RepairGrant grant) {
        return RepairStartResponse.newBuilder().setRepairId(grant.repairId())
                .setTarget(Replica.newBuilder().setNodeId(grant.target().nodeId()).setOffset(grant.target().offset()))
                .setNode(toProto(grant.node())).setDeadlineMs(grant.deadline().toEpochMilli()).build();
    }

    static RepairGrant fromProto(RepairStartResponse response, String key, int slice, String replacing) throws StoreException {
        ReplicaRef target = new ReplicaRef(response.getTarget().getNodeId(), response.getTarget().getOffset());
        return new RepairGrant(response.getRepairId(), key, slice, target, fromProto(response.getNode()), replacing,
                Instant.ofEpochMilli(response.getDeadlineMs()), tickets(response.getTicketsList()),
                Ticket.of(response.getGrant().toByteArray()));
    }

    // ---- a group of masters

    static io.weightstore.store.proto.MasterMember toProto(MasterMember master) {
        return io.weightstore.store.proto.MasterMember.newBuilder().setAddress(master.address()).setLeader(master.leader()).build();
    }

    static MasterMember fromProto(io.weightstore.store.proto.MasterMember master) {
        return MasterMember.live(master.getAddress(), master.getLeader());
    }

    static io.weightstore.store.proto.EtcdMember toProto(EtcdMemberStatus member) {
        return io.weightstore.store.proto.EtcdMember.newBuilder().setEndpoint(member.endpoint()).setHealthy(member.healthy())
                .setLeader(member.leader()).setVersion(member.version()).setDbSizeBytes(member.dbSizeBytes())
                .setError(member.error()).build();
    }

    static EtcdMemberStatus fromProto(io.weightstore.store.proto.EtcdMember member) {
        return new EtcdMemberStatus(member.getEndpoint(), member.getHealthy(), member.getLeader(), member.getVersion(),
                member.getDbSizeBytes(), member.getError());
    }

    // ---- what the master persists

    public static byte[] encode(ObjectMeta object) {
        return toProto(object).toByteArray();
    }

    public static ObjectMeta decodeObject(byte[] bytes) throws StoreException {
        try {
            return fromProto(io.weightstore.store.proto.ObjectMeta.parseFrom(bytes));
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("object", e);
        }
    }

    public static byte[] encode(StoredNode node) {
        return toProto(node.info()).toBuilder().setDraining(node.draining()).build().toByteArray();
    }

    public static StoredNode decodeNode(byte[] bytes) throws StoreException {
        try {
            io.weightstore.store.proto.NodeInfo node = io.weightstore.store.proto.NodeInfo.parseFrom(bytes);
            return new StoredNode(fromProto(node), node.getDraining());
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("node", e);
        }
    }

    public static byte[] encode(PutGrant put) {
        PendingPut.Builder builder = PendingPut.newBuilder().setPutId(put.putId()).setObject(toProto(put.object()))
                .setDeadlineMs(put.deadline().toEpochMilli()).setWriter(put.writer()).setLock(put.lock());
        put.nodes().values().forEach(n -> builder.addNodes(toProto(n)));
        return builder.build().toByteArray();
    }

    public static PutGrant decodePut(byte[] bytes) throws StoreException {
        try {
            PendingPut put = PendingPut.parseFrom(bytes);
            return new PutGrant(put.getPutId(), fromProto(put.getObject()), nodeInfos(put.getNodesList()),
                    Instant.ofEpochMilli(put.getDeadlineMs()), put.getWriter(), put.getLock());
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("pending put", e);
        }
    }

    public static byte[] encode(LockState lock) {
        return LockRecord.newBuilder().setOwner(lock.owner()).setExpiresMs(lock.expiresAt().toEpochMilli()).setHolder(lock.holder()).build()
                .toByteArray();
    }

    public static LockState decodeLock(byte[] bytes) throws StoreException {
        try {
            LockRecord lock = LockRecord.parseFrom(bytes);
            return new LockState(true, lock.getOwner(), Instant.ofEpochMilli(lock.getExpiresMs()), lock.getHolder());
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("lock", e);
        }
    }

    public static byte[] encode(ReadLease lease) {
        return LeaseRecord.newBuilder().setKey(lease.key()).setLeaseId(lease.leaseId()).setExpiresMs(lease.expiresAt().toEpochMilli())
                .setHolder(lease.holder()).build().toByteArray();
    }

    public static ReadLease decodeLease(byte[] bytes) throws StoreException {
        try {
            LeaseRecord lease = LeaseRecord.parseFrom(bytes);
            return new ReadLease(lease.getKey(), lease.getLeaseId(), Instant.ofEpochMilli(lease.getExpiresMs()), lease.getHolder());
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("lease", e);
        }
    }

    public static byte[] encode(RetiredRange range) {
        return RetiredRecord.newBuilder().setKey(range.key()).setLeaseMark(range.leaseMark())
                .setReplica(Replica.newBuilder().setNodeId(range.replica().nodeId()).setOffset(range.replica().offset()))
                .setLength(range.length()).build().toByteArray();
    }

    public static RetiredRange decodeRetired(byte[] bytes) throws StoreException {
        try {
            RetiredRecord range = RetiredRecord.parseFrom(bytes);
            return new RetiredRange(range.getKey(), range.getLeaseMark(), new ReplicaRef(range.getReplica().getNodeId(),
                    range.getReplica().getOffset()), range.getLength());
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("retired range", e);
        }
    }

    public static byte[] encode(BadCopy copy) {
        return BadCopyRecord.newBuilder().setKey(copy.key()).setCreatedMs(copy.version().toEpochMilli()).setSlice(copy.slice())
                .setReplica(Replica.newBuilder().setNodeId(copy.replica().nodeId()).setOffset(copy.replica().offset()))
                .build().toByteArray();
    }

    public static BadCopy decodeBadCopy(byte[] bytes) throws StoreException {
        try {
            BadCopyRecord copy = BadCopyRecord.parseFrom(bytes);
            return new BadCopy(copy.getKey(), Instant.ofEpochMilli(copy.getCreatedMs()), copy.getSlice(),
                    new ReplicaRef(copy.getReplica().getNodeId(), copy.getReplica().getOffset()));
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("bad copy", e);
        }
    }

    public static byte[] encode(ReadTime read) {
        return ReadTimeRecord.newBuilder().setKey(read.key()).setReadMs(read.readAt().toEpochMilli()).build().toByteArray();
    }

    public static ReadTime decodeReadTime(byte[] bytes) throws StoreException {
        try {
            ReadTimeRecord read = ReadTimeRecord.parseFrom(bytes);
            return new ReadTime(read.getKey(), Instant.ofEpochMilli(read.getReadMs()));
        } catch (InvalidProtocolBufferException e) {
            throw unreadable("read time", e);
        }
    }

    private static StoreException unreadable(String what, InvalidProtocolBufferException e) {
        return new StoreException(StoreException.Code.IO, "master metadata: unreadable " + what + " record: " + e.getMessage(), e);
    }
}

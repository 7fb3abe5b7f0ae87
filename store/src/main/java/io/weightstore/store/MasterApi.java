package io.weightstore.store;

import io.weightstore.store.proto.GetReplicasRequest;
import io.weightstore.store.proto.GetReplicasResponse;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.LockResponse;
import io.weightstore.store.proto.PutAbortRequest;
import io.weightstore.store.proto.PutAbortResponse;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutEndResponse;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.proto.RegisterNodeResponse;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.ReleaseLeaseResponse;
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.RemoveResponse;
import io.weightstore.store.proto.SetPinnedRequest;
import io.weightstore.store.proto.SetPinnedResponse;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatResponse;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;

/**
 * The master's operations, as in {@code master.proto}. Implemented in-process by the master itself
 * (embedded mode) and over gRPC by a remote client, so the client has one code path for both.
 */
public interface MasterApi extends AutoCloseable {
    RegisterNodeResponse registerNode(RegisterNodeRequest request) throws StoreException;

    HeartbeatResponse heartbeat(HeartbeatRequest request) throws StoreException;

    PutStartResponse putStart(PutStartRequest request) throws StoreException;

    PutEndResponse putEnd(PutEndRequest request) throws StoreException;

    PutAbortResponse putAbort(PutAbortRequest request) throws StoreException;

    StatResponse stat(StatRequest request) throws StoreException;

    GetReplicasResponse getReplicas(GetReplicasRequest request) throws StoreException;

    ReleaseLeaseResponse releaseLease(ReleaseLeaseRequest request) throws StoreException;

    RemoveResponse remove(RemoveRequest request) throws StoreException;

    ListResponse list(ListRequest request) throws StoreException;

    SetPinnedResponse setPinned(SetPinnedRequest request) throws StoreException;

    LockResponse tryLock(LockRequest request) throws StoreException;

    LockResponse renewLock(LockRequest request) throws StoreException;

    LockResponse releaseLock(LockRequest request) throws StoreException;

    StatusResponse status(StatusRequest request) throws StoreException;

    @Override
    void close();
}

package io.weightstore.store.grpc;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.MasterMember;
import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * The masters of a group as a client of it reports them. The leader lists only the masters alive in etcd, so one
 * that is down would not be shown at all; each master the client was given that the leader does not list is asked
 * directly, once, and shown with what stands in the way.
 */
final class GroupMasters {
    /** A connection to one master alone. */
    @FunctionalInterface
    interface Connections {
        MasterApi to(String address) throws StoreException;
    }

    private GroupMasters() {}

    /**
     * {@code listed}, the leader's list, then each of {@code given} it does not hold, in the order given. Those are
     * asked all at once: one after another, each master that froze added its call's whole deadline to the answer.
     */
    static List<MasterMember> of(List<MasterMember> listed, List<MasterAddress> given, Connections connections) {
        Set<String> known = listed.stream().map(MasterMember::address).collect(Collectors.toSet());
        List<Future<MasterMember>> asked = new ArrayList<>();
        try (ExecutorService asking = Executors.newVirtualThreadPerTaskExecutor()) {
            for (MasterAddress address : given) {
                if (!known.contains(address.toString())) {
                    asked.add(asking.submit(() -> ask(address.toString(), connections)));
                }
            }
        }
        List<MasterMember> all = new ArrayList<>(listed);
        asked.forEach(answer -> all.add(answer.resultNow()));
        return all;
    }

    private static MasterMember ask(String address, Connections connections) {
        try {
            connections.to(address).status();
            return new MasterMember(address, MasterMember.State.UNLISTED, "it answers as a leader, but the group's leader lists no"
                    + " master at this address: another name for one it lists, or a master of another group");
        } catch (StoreException e) {
            // A master that refused (a follower not in etcd yet, or of another cluster) is up; only a call that reached none is not.
            return new MasterMember(address, GrpcStatuses.answered(e) ? MasterMember.State.UNLISTED : MasterMember.State.UNREACHABLE,
                    e.getMessage());
        }
    }
}

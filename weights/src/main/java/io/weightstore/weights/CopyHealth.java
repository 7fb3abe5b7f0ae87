package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.client.RepairOutcome;
import io.weightstore.store.client.ReplicaVerdict;
import java.util.ArrayList;
import java.util.List;

/**
 * What the copies of an object's slices say about the file they hold: OK when every copy is good;
 * DEGRADED when some copy is bad, missing or lacking but every slice still has a good one; CORRUPT
 * when some slice has copies but none good; MISSING when some slice has no copy that can be
 * reached. A slice with no good copy is worse than one with no reachable copy: bad bytes were seen.
 */
record CopyHealth(FileVerdict.Status status, String detail, List<ReplicaVerdict> bad) {
    static CopyHealth of(ObjectMeta object, List<ReplicaVerdict> verdicts) {
        List<ReplicaVerdict> bad = verdicts.stream().filter(v -> !v.state().usable()).toList();
        List<String> lacking = new ArrayList<>();
        String noGoodCopy = null;
        String noReachableCopy = null;
        for (int slice = 0; slice < object.slices().size(); slice++) {
            int index = slice;
            List<ReplicaVerdict> ofSlice = verdicts.stream().filter(v -> v.slice() == index).toList();
            if (ofSlice.stream().noneMatch(v -> v.state().usable())) {
                String why = ofSlice.isEmpty() ? "no copy is recorded" : ofSlice.getFirst().detail();
                if (ofSlice.stream().anyMatch(v -> v.state() == ReplicaVerdict.State.CORRUPT)) {
                    noGoodCopy = noGoodCopy != null ? noGoodCopy : "slice " + slice + " has no good copy: " + why;
                } else {
                    noReachableCopy = noReachableCopy != null ? noReachableCopy : "slice " + slice + " has no reachable copy: " + why;
                }
            }
            int copies = object.slice(slice).replicas().size();
            if (copies < object.replicas()) {
                lacking.add("slice " + slice + " has " + copies + " of " + object.replicas() + " copies");
            }
        }
        if (noGoodCopy != null) {
            return new CopyHealth(FileVerdict.Status.CORRUPT, noGoodCopy, bad);
        }
        if (noReachableCopy != null) {
            return new CopyHealth(FileVerdict.Status.MISSING, noReachableCopy, bad);
        }
        if (bad.isEmpty() && lacking.isEmpty()) {
            boolean read = verdicts.stream().allMatch(v -> v.state() == ReplicaVerdict.State.OK);
            return new CopyHealth(FileVerdict.Status.OK, "every copy " + (read ? "matches its checksums" : "is on a node that is up")
                    + " (" + copies(verdicts.size()) + ")", bad);
        }
        List<String> problems = new ArrayList<>();
        if (!bad.isEmpty()) {
            ReplicaVerdict first = bad.getFirst();
            problems.add(bad.size() + " of " + verdicts.size() + " copies bad: slice " + first.slice() + " on " + first.nodeId() + " "
                    + first.state() + " (" + first.detail() + ")" + (bad.size() > 1 ? " and " + (bad.size() - 1) + " more" : ""));
        }
        if (!lacking.isEmpty()) {
            problems.add(lacking.getFirst() + (lacking.size() > 1 ? " and " + (lacking.size() - 1) + " more slices lack copies" : ""));
        }
        return new CopyHealth(FileVerdict.Status.DEGRADED, "data whole, but " + String.join("; ", problems), bad);
    }

    static String copies(long n) {
        return n + (n == 1 ? " copy" : " copies");
    }

    /** How a round of repairs went, in a few words for the file's detail. */
    static String summary(List<RepairOutcome> repairs) {
        List<RepairOutcome> failed = repairs.stream().filter(r -> !r.repaired()).toList();
        if (failed.isEmpty()) {
            return copies(repairs.size()) + " repaired";
        }
        return (repairs.size() - failed.size()) + " of " + copies(repairs.size()) + " repaired; " + failed.getFirst().describe()
                + (failed.size() > 1 ? " (and " + (failed.size() - 1) + " more failed)" : "");
    }
}

package io.weightstore.store.master;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ScrubTask;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * Where each node's scrubber is in its walk over the objects: a node asks for as many bytes of its
 * replicas as it can check in a while, and gets the next ones in key order, round and round. A node
 * holds no list of what it stores (the master does), so the master hands the work out. Each call
 * looks at a bounded number of objects, so a heartbeat stays cheap however large the catalog.
 * Not thread-safe; the master serialises access.
 */
final class ScrubCursors {
    private static final int PAGE = 64;
    private static final int MOST_OBJECTS_PER_CALL = 512;

    private final MetadataStore metadata;
    /** The last key handed to each node; its walk goes on after it. */
    private final Map<String, String> after = new HashMap<>();

    ScrubCursors(MetadataStore metadata) {
        this.metadata = metadata;
    }

    /**
     * The node's next replicas to check, about {@code room} bytes (whole objects' worth, so a little
     * more), skipping slices for which {@code skip} holds (a copy is being written there).
     */
    List<ScrubTask> next(String nodeId, long room, BiPredicate<String, Integer> skip) throws StoreException {
        String cursor = after.getOrDefault(nodeId, "");
        List<ScrubTask> tasks = new ArrayList<>();
        long bytes = 0;
        int looked = 0;
        boolean wrapped = false;
        while (bytes < room && looked < MOST_OBJECTS_PER_CALL) {
            List<ObjectMeta> page = metadata.objects("", cursor, PAGE);
            if (page.isEmpty()) {
                if (cursor.isEmpty() || wrapped) {
                    break;
                }
                cursor = "";
                wrapped = true;
                continue;
            }
            for (ObjectMeta object : page) {
                looked++;
                cursor = object.key();
                bytes += add(object, nodeId, skip, tasks);
                if (bytes >= room) {
                    break;
                }
            }
        }
        after.put(nodeId, cursor);
        return tasks;
    }

    private static long add(ObjectMeta object, String nodeId, BiPredicate<String, Integer> skip, List<ScrubTask> tasks) {
        long bytes = 0;
        for (int i = 0; i < object.slices().size(); i++) {
            SliceMeta slice = object.slice(i);
            for (ReplicaRef replica : slice.replicas()) {
                if (replica.nodeId().equals(nodeId) && !skip.test(object.key(), i)) {
                    tasks.add(new ScrubTask(object.key(), object.createdAt(), i, replica.offset(), slice.length(),
                            object.checksumBlockSize(), slice.crcs()));
                    bytes += slice.length();
                }
            }
        }
        return bytes;
    }

    void forget(String nodeId) {
        after.remove(nodeId);
    }
}

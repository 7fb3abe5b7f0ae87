package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import java.io.IOException;
import java.util.Optional;

/**
 * How many copies of each slice a checkpoint's files keep.
 *
 * @param auto the master may add copies beyond {@code replicas} while many readers hold a file
 */
record CopyCount(int replicas, boolean auto) {
    CopyCount {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
    }

    /** What the files of {@code version} keep now: the largest count any of them has (one if none is stored), auto if any is. */
    static CopyCount keptBy(Manifest version, Catalog catalog) throws IOException {
        int most = 1;
        boolean auto = false;
        for (StoredFile file : catalog.files(version)) {
            Optional<ObjectMeta> object = file.object();
            if (object.isPresent()) {
                most = Math.max(most, object.get().replicas());
                auto |= object.get().autoReplicas();
            }
        }
        return new CopyCount(most, auto);
    }

    /**
     * What {@code request} writes its files with: its own count, else what {@code replaced} keeps, the READY version a
     * replace replaces, else one. A replace writes only the files that changed: a default of one would quietly undo what
     * {@code model replicate} set, for exactly the files that are new.
     */
    static CopyCount forImport(ImportRequest request, Optional<Manifest> replaced, Catalog catalog) throws IOException {
        if (request.replicas().isPresent()) {
            return new CopyCount(request.replicas().getAsInt(), false);
        }
        return replaced.isPresent() ? keptBy(replaced.get(), catalog) : new CopyCount(1, false);
    }
}

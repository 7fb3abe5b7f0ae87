package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import java.io.IOException;
import java.util.Optional;

/**
 * How many copies an import writes each file with. A replace writes only the files that changed, so
 * with no count of its own it takes the version before's, auto included: a default of one would
 * quietly undo what {@code model replicate} set, for exactly the files that are new.
 *
 * @param auto the master may add copies beyond {@code replicas} while many readers hold a file
 */
record ImportCopies(int replicas, boolean auto) {
    ImportCopies {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
    }

    /** What {@code request} writes with, over {@code replaced}, the READY version a replace replaces, if any. */
    static ImportCopies of(ImportRequest request, Optional<Manifest> replaced, Catalog catalog) throws IOException {
        if (request.replicas().isPresent()) {
            return new ImportCopies(request.replicas().getAsInt(), false);
        }
        int most = 1;
        boolean auto = false;
        if (replaced.isPresent()) {
            for (StoredFile file : catalog.files(replaced.get())) {
                Optional<ObjectMeta> object = file.object();
                if (object.isPresent()) {
                    most = Math.max(most, object.get().replicas());
                    auto |= object.get().autoReplicas();
                }
            }
        }
        return new ImportCopies(most, auto);
    }
}

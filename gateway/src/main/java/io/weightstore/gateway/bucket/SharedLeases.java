package io.weightstore.gateway.bucket;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.weights.CheckpointId;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Read leases shared by the requests for one file, under one manifest version, in flight at the same
 * time: the first takes the lease (a master call), the others use it, the last one done releases it
 * (another). The parallel ranged GETs of one download so cost two master calls between them rather
 * than two each. No lease outlives the requests using it: a checkpoint nobody is reading can be
 * deleted or replaced at once, as a delete is refused, not delayed, while a file is leased.
 */
final class SharedLeases {
    /** Opens a file under a lease of its own. */
    interface Opener {
        ObjectReader open() throws IOException;
    }

    /** Which file, under which version of its checkpoint's manifest, a lease is for: a replaced checkpoint's files get their own. */
    record FileVersion(CheckpointId checkpoint, String path, Instant manifestVersion) {}

    private final ConcurrentMap<FileVersion, Lease> leases = new ConcurrentHashMap<>();
    private final InPlaceChecks checks;
    private final LongAdder taken = new LongAdder();

    SharedLeases() {
        this(new InPlaceChecks());
    }

    /** Leases whose in-place views take their checks from {@code checks}. */
    SharedLeases(InPlaceChecks checks) {
        this.checks = checks;
    }

    /**
     * One read lease, taken by the first request that uses it while the others wait, the requests
     * using it, and its object in place once a request asked.
     */
    final class Lease {
        private final FileVersion file;
        private final Object opening = new Object();
        private ObjectReader reader;
        private int uses;
        private boolean shareable = true;
        private InPlaceView view;

        private Lease(FileVersion file) {
            this.file = file;
        }

        synchronized ObjectReader reader() {
            return reader;
        }

        /**
         * Takes a use, opening the file if no request did yet; false when the lease may not be shared
         * any more: the last use ended it, opening it failed for another request, or the store client's
         * lease keeper found its object removed or replaced.
         */
        private synchronized boolean use(Opener opener) throws IOException {
            if (!shareable) {
                return false;
            }
            if (reader == null) {
                try {
                    reader = opener.open();
                    taken.increment();
                } catch (IOException | RuntimeException e) {
                    shareable = false;
                    leases.remove(file, this);
                    throw e;
                }
            } else {
                try {
                    reader.replicaPresence();   // fails once the lease keeper found the object gone
                } catch (StoreException gone) {
                    shareable = false;
                    leases.remove(file, this);
                    return false;
                }
            }
            uses++;
            return true;
        }

        /** Ends a use; the last one closes the object's files and then ends the lease, so nothing is open that is not leased. */
        void release() {
            synchronized (this) {
                if (--uses > 0) {
                    return;
                }
                shareable = false;
            }
            leases.remove(file, this);
            synchronized (opening) {
                if (view != null) {
                    view.close();
                }
            }
            reader.close();
        }

        /**
         * Opens and checks the object on the first call, and checks it again on a later one once its check is
         * no longer current: a lease lives as long as requests overlap, which for a popular file is for
         * ever. A request holds a use meanwhile, so the lease cannot end under it.
         */
        Optional<InPlaceFiles> inPlace() {
            synchronized (opening) {
                view = view == null ? InPlaceView.open(reader(), checks) : view.checkedAgain(reader(), checks);
                return view.files();
            }
        }
    }

    /**
     * Opens {@code file} for one request under the lease of the requests for it in flight, else under
     * a new one that {@code opener} takes: requests that arrive together wait for the first to take it
     * rather than each taking one (a download's first ranged GETs come at once).
     */
    OpenFile acquire(FileVersion file, Opener opener) throws IOException {
        while (true) {
            Lease lease = leases.computeIfAbsent(file, Lease::new);
            if (lease.use(opener)) {
                return new OpenFile(lease);
            }
            leases.remove(file, lease);
        }
    }

    /** Leases held now, each for one file and the requests reading it. */
    int held() {
        return leases.size();
    }

    /** Leases taken so far: a master call each to take and to release. */
    long taken() {
        return taken.sum();
    }
}

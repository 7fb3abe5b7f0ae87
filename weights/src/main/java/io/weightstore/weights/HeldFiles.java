package io.weightstore.weights;

import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Read leases on every file of one version of a checkpoint, held while a command works through the
 * files one after another, as a loader holds them while it loads. A replace that finishes meanwhile
 * leaves that version's files (and the CRC tables removed with them) for a later prune rather than
 * removing them under the command, which would then find the files it had not reached yet missing.
 */
final class HeldFiles implements AutoCloseable {
    private final List<ObjectReader> readers;

    private HeldFiles(List<ObjectReader> readers) {
        this.readers = readers;
    }

    /** A lease on each of {@code files} that opens; one that does not is left to the caller, which meets it again in its turn. */
    static HeldFiles of(List<StoredFile> files) throws IOException {
        List<ObjectReader> readers = new ArrayList<>();
        try {
            for (StoredFile file : files) {
                try {
                    readers.add(file.open());
                } catch (IOException unreadable) {
                    // Missing or not the manifest's: the caller reports it, with the file's own verdict or error, when it gets there.
                }
            }
        } catch (RuntimeException e) {
            readers.forEach(ObjectReader::close);
            throw e;
        }
        return new HeldFiles(readers);
    }

    @Override
    public void close() {
        readers.forEach(ObjectReader::close);
    }
}

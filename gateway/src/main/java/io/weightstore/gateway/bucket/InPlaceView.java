package io.weightstore.gateway.bucket;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object of one read lease where it lies in the pool files of this host's nodes
 * ({@link ObjectReader#openInPlace}), open for sendfile, its bytes checked against the checksums
 * computed when it was written before any is sent, and closed when the lease ends: the lease is what
 * keeps the object, and the room it lies in, from being removed or reused under the transfers.
 */
final class InPlaceView implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InPlaceView.class);

    /** What requests send from; empty once a check failed. */
    private final Optional<InPlaceFiles> files;
    /** What this view closes: the files even after a later check failed, as requests that began before may still send from them. */
    private final Optional<InPlaceFiles> held;

    private InPlaceView(Optional<InPlaceFiles> files, Optional<InPlaceFiles> held) {
        this.files = files;
        this.held = held;
    }

    private InPlaceView(Optional<InPlaceFiles> files) {
        this(files, files);
    }

    /**
     * Opens the object {@code reader} holds and checks the files opened, unless {@code checks} has a
     * current pass for them. The view is empty when some slice has no copy here, or when the check or
     * the opening failed: then the object is read through the store, which checks every read and tries
     * the other copies.
     */
    static InPlaceView open(ObjectReader reader, InPlaceChecks checks) {
        Optional<InPlaceFiles> files = Optional.empty();
        try {
            files = reader.openInPlace();
            if (files.isPresent()) {
                checkUnlessCurrent(reader, checks, files.get());
            }
            return new InPlaceView(files);
        } catch (IOException e) {
            boolean corrupt = e instanceof StoreException s && s.code() == StoreException.Code.CORRUPT;
            String why = corrupt ? "a copy here is corrupt" : "it cannot be opened";
            log.warn("{} is read through the store rather than in place ({}): {}", reader.key(), why, e.getMessage());
            files.ifPresent(InPlaceFiles::close);
            return new InPlaceView(Optional.empty());
        } catch (RuntimeException e) {
            files.ifPresent(InPlaceFiles::close);
            throw e;
        }
    }

    /**
     * This view, with its files checked again if {@code checks} has no current pass for them; a view
     * whose check fails now sends nothing more, and the object is read through the store.
     */
    InPlaceView checkedAgain(ObjectReader reader, InPlaceChecks checks) {
        if (files.isEmpty()) {
            return this;
        }
        try {
            checkUnlessCurrent(reader, checks, files.get());
            return this;
        } catch (IOException e) {
            log.warn("{} is read through the store from now on: checked again in place, {}", reader.key(), e.getMessage());
            return new InPlaceView(Optional.empty(), held);
        }
    }

    /** Checks the copies {@code files} hold, unless a check of them passed recently enough. */
    private static void checkUnlessCurrent(ObjectReader reader, InPlaceChecks checks, InPlaceFiles files) throws IOException {
        ObjectMeta object = reader.object();
        if (!checks.current(object, files.copies())) {
            reader.checkInPlace(files);
            checks.passed(object, files.copies());
        }
    }

    /** The whole object's pool files, valid until this view is closed; empty when it is to be read through the store. */
    Optional<InPlaceFiles> files() {
        return files;
    }

    /** Closes the files; no request may send from {@link #files} any more. */
    @Override
    public void close() {
        held.ifPresent(InPlaceFiles::close);
    }
}

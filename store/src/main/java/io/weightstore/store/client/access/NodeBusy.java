package io.weightstore.store.client.access;

import java.io.IOException;

/**
 * A node answered the handshake BUSY: every connection it allows is at work. Nothing is wrong with it;
 * ask again shortly. The cause of the UNAVAILABLE a node access throws once it has waited long enough.
 */
public final class NodeBusy extends IOException {
    private static final long serialVersionUID = 1L;

    NodeBusy(String message) {
        super(message);
    }
}

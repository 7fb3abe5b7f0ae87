package io.weightstore.store.client;

import io.weightstore.store.api.StoreException;

/**
 * A call to the master that must go out even from a thread being interrupted: the abort of a put or a
 * repair that the interrupt cancelled, which frees its room and key at once instead of at its
 * deadline, and the end of a read lease, which would otherwise hold off a delete until it ran out. A blocking gRPC call made with the flag set gives up before it is sent, so the flag is
 * cleared for the call and set again after it.
 */
final class Uninterrupted {
    @FunctionalInterface
    interface MasterCall {
        void run() throws StoreException;
    }

    private Uninterrupted() {}

    static void run(MasterCall call) throws StoreException {
        boolean interrupted = Thread.interrupted();
        try {
            call.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

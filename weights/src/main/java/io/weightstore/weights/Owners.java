package io.weightstore.weights;

/** Object owners in messages: the identity the master recorded, or what an empty one means. */
final class Owners {
    private Owners() {}

    static String describe(String owner) {
        return owner.isEmpty() ? "no identity (a store without identities)" : owner;
    }
}

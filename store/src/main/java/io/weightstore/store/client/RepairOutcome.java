package io.weightstore.store.client;

/**
 * One copy of one slice that {@link ObjectReader#repair} set out to rewrite, and how it ended.
 *
 * @param replaced the node whose copy was bad or missing, or empty for a copy the slice lacked
 * @param node the node that holds the new copy, or empty when the master found no room for it
 * @param source the node whose good copy was read, or empty when none could be
 * @param repaired true once the copy was written, checked on its node and committed
 * @param detail what went wrong when not repaired
 */
public record RepairOutcome(int slice, String replaced, String node, String source, boolean repaired, String detail) {
    public boolean inPlace() {
        return !replaced.isEmpty() && replaced.equals(node);
    }

    /** One line for people: what moved where, or why it did not. */
    public String describe() {
        if (!repaired) {
            return "slice " + slice + (replaced.isEmpty() ? " (a missing copy)" : " on " + replaced) + " not repaired: " + detail;
        }
        if (inPlace()) {
            return "slice " + slice + " rewritten in place on " + node + " from " + source;
        }
        return "slice " + slice + " copied from " + source + " to " + node + (replaced.isEmpty() ? " (a missing copy)"
                : " in place of " + replaced);
    }
}

package io.weightstore.store.client.access;

/**
 * What a read does when its node answers BUSY (every connection it allows at work): wait for a place,
 * or fail at once with {@link NodeBusy} so that a caller holding another replica asks that one instead.
 */
public enum OnBusy {
    /** Ask again after {@link BusyPauses} until the base deadline, then fail UNAVAILABLE. */
    WAIT,
    /** Throw {@link NodeBusy} at the first BUSY. */
    FAIL_AT_ONCE
}

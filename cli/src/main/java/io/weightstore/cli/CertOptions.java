package io.weightstore.cli;

import java.time.Duration;

/** Checks shared by the cert verbs' options. */
final class CertOptions {
    private CertOptions() {}

    static Duration days(String option, int days) {
        if (days < 1) {
            throw new IllegalArgumentException(option + "=" + days + " must be >= 1");
        }
        return Duration.ofDays(days);
    }
}

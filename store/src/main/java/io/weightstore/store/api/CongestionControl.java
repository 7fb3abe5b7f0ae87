package io.weightstore.store.api;

import java.util.regex.Pattern;

/**
 * The TCP congestion control data-plane bytes are sent under: a kernel algorithm by name, or the host's
 * default ({@link #HOST_DEFAULT}).
 *
 * <p>The default is CUBIC, chosen for the data plane's shape: bulk answers to requests, on loopback or
 * a datacenter network. Under BBR without the fq queueing discipline, as many hosts run, the kernel
 * paces every connection with timers of its own; on loopback that cost three times the CPU per byte
 * of CUBIC, and request-and-answer traffic lost more than one long stream (bench/README.md, "TCP congestion
 * control").
 */
public record CongestionControl(String algorithm) {
    /**
     * The kernel's names: lower-case letters, digits and underscores, at most 15 bytes (TCP_CA_NAME_MAX less its
     * NUL). Declared before the constants below, whose construction checks against it.
     */
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,15}");

    /** Keeps whatever the host's {@code net.ipv4.tcp_congestion_control} says. */
    public static final CongestionControl HOST_DEFAULT = new CongestionControl("system");
    public static final CongestionControl CUBIC = new CongestionControl("cubic");

    public CongestionControl {
        if (algorithm == null || !NAME.matcher(algorithm).matches()) {
            throw new IllegalArgumentException("TCP congestion control must be 'system' or a kernel algorithm's name (such as cubic,"
                    + " reno, bbr): algorithm=" + algorithm);
        }
    }

    public boolean isHostDefault() {
        return this.equals(HOST_DEFAULT);
    }

    @Override
    public String toString() {
        return algorithm;
    }
}

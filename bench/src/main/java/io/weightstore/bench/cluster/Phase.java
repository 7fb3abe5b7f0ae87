package io.weightstore.bench.cluster;

import java.util.List;

/**
 * One phase of {@code bench cluster}: some receiving processes, one per host, run at once and timed
 * on the wire.
 *
 * @param startBarrier whether the receivers were held after their first bytes until all had started
 * @param releaseSeconds when they were released, from the phase's start (0 without the barrier)
 * @param receivers each receiving host, as its process reported and as its NIC saw it
 * @param overlapSeconds how long all receivers were receiving at once
 * @param aggregateGbPerSecond payload rate of all receivers together while all were receiving; null when they overlapped too briefly
 * @param wallSeconds from the first receiver's first byte to the last one's last
 * @param wallAggregateGbPerSecond payload rate of all receivers together over the wall time
 * @param senderHosts the hosts that served
 * @param senderShares each sender's fraction of the bytes all senders sent, in the order of {@code senderHosts}
 */
public record Phase(boolean startBarrier, double releaseSeconds, List<Receiver> receivers, double overlapSeconds,
        Double aggregateGbPerSecond, double wallSeconds, double wallAggregateGbPerSecond, List<Integer> senderHosts,
        List<Double> senderShares) {

    /**
     * One receiving host.
     *
     * @param payloadBytes what its process says it received
     * @param nicBytes what its NIC received in the phase (frames, headers included)
     * @param fractionOfCheckpointOverNic {@code nicBytes} over the checkpoint's size
     * @param fractionOfCheckpoint the process's own count of the checkpoint's bytes it read, when it gives one
     * @param heldSeconds how long the start barrier held it
     * @param seconds the process's own time, when it gives one (the hold included)
     * @param gbPerSecond the process's own rate (the hold included)
     * @param secondsWithoutHold {@code seconds} less the hold
     * @param gbPerSecondWithoutHold payload over {@code secondsWithoutHold}
     * @param wireStartSeconds when its NIC had received 1% of its bytes, from the phase's start (not before the release)
     * @param wireEndSeconds when its NIC had received 99%
     * @param wireGbPerSecond its payload rate between those two
     */
    public record Receiver(int host, long payloadBytes, long nicBytes, double fractionOfCheckpointOverNic, Double fractionOfCheckpoint,
            double heldSeconds, Double seconds, Double gbPerSecond, Double secondsWithoutHold, Double gbPerSecondWithoutHold,
            double wireStartSeconds, double wireEndSeconds, double wireGbPerSecond) {}
}

package io.weightstore.bench.cluster;

import java.util.List;

/**
 * What {@code bench fanout} measured: one step per placement of the checkpoint's copies. Times are
 * the loaders' own (the start barrier's hold taken out), since a loader that maps its own node's
 * pool leaves nothing on its NIC to time; GB/s are 10^9 payload bytes per second.
 *
 * @param hosts hosts on the bed: host 0 the master's, the others each a node's and a loader's
 * @param sliceSize the master's slice size, as given
 */
public record FanOutReport(int hosts, long nicBitsPerSecond, int cores, long checkpointBytes, int checkpointFiles, int importedReplicas,
        String sliceSize, boolean startBarrier, List<Step> steps) {

    double nicGbPerSecond() {
        return nicBitsPerSecond / 8e9;
    }

    /**
     * One step: some loaders loading the whole checkpoint at once.
     *
     * @param copiesPerSlice the checkpoint's copies per slice when the step began
     * @param localFraction the part of the checkpoint the loaders' own nodes held then, averaged over the loaders
     * @param slowestSeconds the slowest loader's own time
     * @param medianSeconds the median loader's own time
     * @param aggregateGbPerSecond every loader's bytes over the slowest loader's time
     * @param meanFractionOverNic the part of the checkpoint that crossed a loader's NIC, averaged over the loaders
     * @param maxFractionOverNic the same for the loader that took the most over its NIC
     * @param nodeShares each engine host's share of the bytes all of them sent (NIC counters)
     * @param maxShareToFair the largest share over the fair one (1/H); null for a single loader, or loaders that read their own nodes
     * @param phase the phase as timed, with each receiver's figures
     */
    public record Step(String name, String setting, double copiesPerSlice, double localFraction, double slowestSeconds,
            double medianSeconds, double aggregateGbPerSecond, double meanFractionOverNic, double maxFractionOverNic,
            List<Double> nodeShares, Double maxShareToFair, Phase phase) {

        static Step of(String name, String setting, double copiesPerSlice, double localFraction, Phase phase, long checkpointBytes) {
            List<Phase.Receiver> loaders = phase.receivers();
            List<Double> seconds = loaders.stream().map(Phase.Receiver::secondsWithoutHold).toList();
            double slowest = seconds.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            long bytes = loaders.stream().mapToLong(Phase.Receiver::payloadBytes).sum();
            double share = phase.senderShares().stream().mapToDouble(Double::doubleValue).max().orElse(0);
            return new Step(name, setting, copiesPerSlice, localFraction, slowest, ClusterReport.median(seconds), bytes / slowest / 1e9,
                    loaders.stream().mapToDouble(Phase.Receiver::fractionOfCheckpointOverNic).average().orElseThrow(),
                    loaders.stream().mapToDouble(Phase.Receiver::fractionOfCheckpointOverNic).max().orElseThrow(),
                    phase.senderShares(), loaders.size() > 1 && mostlyOverNics(loaders) ? share * phase.senderShares().size() : null, phase);
        }

        /** Whether the loaders took a tenth of the checkpoint over their NICs: else the hosts sent requests, not data, and shares say nothing. */
        private static boolean mostlyOverNics(List<Phase.Receiver> loaders) {
            return loaders.stream().mapToDouble(Phase.Receiver::fractionOfCheckpointOverNic).average().orElse(0) >= 0.1;
        }
    }
}

/**
 * What a checkpoint's import records so a reader can check what it receives without trusting the
 * nodes: the digest of each file's block checksums, and per tensor the CRC32C of the whole tensor and
 * of every row and column shard a rank of 2, 4 or 8 reads. Pure computations over bytes and
 * metadata; the catalog stores them, the loader compares.
 */
package io.weightstore.weights.checks;

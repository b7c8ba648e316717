/**
 * Simulating a consortium from one data set: {@link dev.chorus.learning.partition.Partitioner}s
 * that split rows among N nodes (IID, Dirichlet label skew, size skew, or a natural split by the
 * value of a column such as a site or a year), and the {@link
 * dev.chorus.learning.partition.ShardWriter} that writes one shard file per node in the source's
 * own format, with a {@code manifest.json} of hashes and label counts.
 *
 * <p>Every partitioner is deterministic for a given seed. Nothing here trains or sends data.
 */
package dev.chorus.learning.partition;

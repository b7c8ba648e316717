/**
 * Many real nodes in one JVM: each with its own libp2p host on loopback, its own shard, trainer and averaging
 * engine. Stragglers are slowed by a pause after each step, slow links by the host's bandwidth limit. An evaluator
 * scores every node on one held-out test set every few seconds; the results are written as a CSV file, a PNG plot
 * and a JSON summary. Owns no protocol: it only wires {@code gossip}, {@code learning}, {@code aggregation} and
 * {@code node}'s averaging engine together. The commands that drive it are in {@code cli}.
 */
package dev.chorus.testnet;

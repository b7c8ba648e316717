/**
 * A local testnet of separate node processes on one machine: {@code up} partitions a data set into per-node
 * shards, creates a data directory per node (as {@code chorus init} does), starts one {@code chorus node run} JVM
 * per node on loopback, bootstrapped to the nodes started before it, and records them in {@code testnet.json};
 * {@code down} stops the processes recorded there. It only starts and stops processes: everything a node does is
 * the daemon's.
 */
package dev.chorus.node.localnet;

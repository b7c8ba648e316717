/**
 * A local testnet of separate node processes on one machine: node processes started with the main class the
 * caller names, Linux network namespaces with delay and bandwidth on their links, and the {@code testnet.json}
 * manifest that records them. It only starts and stops processes: everything a node does is the daemon's. The
 * commands that drive it ({@code testnet up|down|compose}) are in {@code cli}.
 */
package dev.chorus.testnet.localnet;

/**
 * Benchmarks of the networking stack behind {@code chorus bench p2p}: the JDK cipher's ceiling, raw
 * TCP, one libp2p stream (Java and js-libp2p), stream churn and the memory of idle connections. Every
 * process and host a benchmark starts is stopped by it; all traffic stays on loopback.
 */
package dev.chorus.node.bench;

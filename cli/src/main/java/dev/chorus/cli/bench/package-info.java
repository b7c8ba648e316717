/**
 * Benchmarks behind {@code chorus bench p2p} and {@code chorus bench daemon}: the JDK cipher's ceiling, raw TCP, one
 * libp2p stream (Java and js-libp2p), stream churn and the memory of idle connections; the daemon's start-up time,
 * idle resident memory and the cost of its HTTP API to training. Every process, host and node a benchmark starts is
 * stopped by it; all traffic stays on loopback.
 */
package dev.chorus.cli.bench;

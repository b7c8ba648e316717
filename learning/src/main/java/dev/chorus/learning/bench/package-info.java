/**
 * Command-line benchmarks of the learning stack (GEMM throughput against the machine's peak). Each
 * has a {@code main} for the command line and a {@code public static} method that returns its
 * results, so that tests and other tools can run it too. Nothing here is used by training itself.
 */
package dev.chorus.learning.bench;

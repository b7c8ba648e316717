/**
 * Synchronous strategies, the baselines: all-to-all averaging with a barrier
 * ({@link dev.chorus.aggregation.sync.SynchronousAveraging}) and with a deadline and partial participation
 * ({@link dev.chorus.aggregation.sync.DeadlineAveraging}). Their round and barrier state is explicit
 * ({@link dev.chorus.aggregation.sync.RoundPhase}, round number, missing participants), so the node can show it
 * and the trainer can decide to wait; the strategies themselves never block.
 */
package dev.chorus.aggregation.sync;

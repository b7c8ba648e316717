/**
 * Averaging over flat {@code float[]} parameter vectors, as plain data and state machines.
 *
 * <p>This package holds what every strategy shares: the messages ({@link dev.chorus.aggregation.ModelUpdate},
 * {@link dev.chorus.aggregation.PullRequest}, {@link dev.chorus.aggregation.Outbound}), the local model a strategy
 * merges into ({@link dev.chorus.aggregation.LocalModel}), the strategy contract
 * ({@link dev.chorus.aggregation.AveragingStrategy}), failures passed in as data
 * ({@link dev.chorus.aggregation.DeliveryFailure}) and the validation of untrusted vectors. Strategies live in
 * {@code async} and {@code sync}, update weights in {@code weighting}, robust aggregation rules in {@code robust}.
 *
 * <p>Nothing here touches the network, threads, files or ND4J: time and randomness are passed in
 * ({@link java.time.InstantSource}, {@link java.util.random.RandomGenerator}) so every state machine runs on a
 * controlled clock in tests. The {@code node} module encodes these messages on the wire.
 */
package dev.chorus.aggregation;

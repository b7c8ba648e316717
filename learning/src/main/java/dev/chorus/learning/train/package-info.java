/**
 * The local trainer: seeded epochs of shuffled mini-batches over a {@link
 * dev.chorus.learning.data.Dataset}, one optimizer step per batch, with {@link
 * dev.chorus.learning.train.StepListener}s called after every step (where the averaging engine
 * snapshots and merges the flat parameter vector) and {@link
 * dev.chorus.learning.train.ProgressReporter}s for the terminal, machines (JSON lines) or nobody.
 * The trainer never touches the network and never waits for it.
 */
package dev.chorus.learning.train;

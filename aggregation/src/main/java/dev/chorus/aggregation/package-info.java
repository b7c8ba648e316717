/**
 * Averaging strategies over flat {@code float[]} parameter vectors: asynchronous gossip averaging, staleness weighting, fragmented exchange, the synchronous baseline and robust aggregators. Pure functions and state machines: no networking, no ND4J.
 */
package dev.chorus.aggregation;

/**
 * How much an arrived update counts: staleness functions of the version lag (constant, polynomial, hinge, from
 * FedAsync) and sample-count weighting, combined in {@link dev.chorus.aggregation.weighting.UpdateWeighting}.
 * Pure functions of numbers; no state.
 */
package dev.chorus.aggregation.weighting;

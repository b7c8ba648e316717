package dev.chorus.testnet;

/** One measured run of a comparison: a strategy, with the impairments or without. */
public record PlannedRun(StrategyKind kind, boolean impaired) {}

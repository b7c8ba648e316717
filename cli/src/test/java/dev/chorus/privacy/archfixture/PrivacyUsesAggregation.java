package dev.chorus.privacy.archfixture;

import dev.chorus.aggregation.archfixture.AggregationWithoutNetworking;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class PrivacyUsesAggregation {
    AggregationWithoutNetworking aggregation;
}

package dev.chorus.learning.archfixture;

import dev.chorus.node.archfixture.NodeFixture;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class LearningUsesNode {
    NodeFixture node;
}

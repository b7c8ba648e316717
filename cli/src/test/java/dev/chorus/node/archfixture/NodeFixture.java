package dev.chorus.node.archfixture;

import dev.chorus.learning.archfixture.LearningUsesNode;

/** Test-only fixture for ArchitectureRulesCanFailTest: a node class that learning's fixture uses, and back. */
public class NodeFixture {
    LearningUsesNode learning;
}

package dev.chorus.node.archfixture;

import dev.chorus.testnet.archfixture.TestnetUsesCli;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class NodeUsesTestnet {
    TestnetUsesCli testnet;
}

package dev.chorus.testnet.archfixture;

import dev.chorus.cli.archfixture.CliFixture;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class TestnetUsesCli {
    CliFixture cli;
}

package dev.chorus.cli.archfixture;

/** Test-only fixture for ArchitectureRulesCanFailTest: a class in the cli module for others to depend on. */
public class CliFixture {}

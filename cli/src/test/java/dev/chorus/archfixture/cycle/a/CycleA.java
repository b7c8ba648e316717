package dev.chorus.archfixture.cycle.a;

import dev.chorus.archfixture.cycle.b.CycleB;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class CycleA {
    CycleB other;
}

package dev.chorus.archfixture.cycle.b;

import dev.chorus.archfixture.cycle.a.CycleA;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class CycleB {
    CycleA other;
}

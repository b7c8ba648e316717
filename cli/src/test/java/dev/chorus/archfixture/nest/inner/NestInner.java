package dev.chorus.archfixture.nest.inner;

import dev.chorus.archfixture.nest.NestOuter;

/** Test-only fixture for ArchitectureRulesCanFailTest: a package and its subpackage that use each other. */
public class NestInner {
    NestOuter outer;
}

package dev.chorus.archfixture.nest;

import dev.chorus.archfixture.nest.inner.NestInner;

/** Test-only fixture for ArchitectureRulesCanFailTest: a package and its subpackage that use each other. */
public class NestOuter {
    NestInner inner;
}

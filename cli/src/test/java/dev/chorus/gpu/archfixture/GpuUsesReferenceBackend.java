package dev.chorus.gpu.archfixture;

import dev.chorus.learning.tensor.reference.ReferenceBackend;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class GpuUsesReferenceBackend {
    ReferenceBackend oracle;
}

package dev.chorus.gpu.archfixture;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/** Test-only fixture for ArchitectureRulesCanFailTest: it keeps to the rules, as a control. */
public class GpuUsesTensorSpi {
    TensorBackend backend;
    Tensor tensor;
}

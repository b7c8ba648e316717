package dev.chorus.learning.tensor.reference;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendConformanceTest;

/** The reference backend against a second instance of itself: checks the suite's own plumbing. */
class ReferenceBackendConformanceTest extends TensorBackendConformanceTest {

    @Override
    protected TensorBackend backendUnderTest() {
        return new ReferenceBackend();
    }
}

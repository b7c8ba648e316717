package dev.chorus.learning.tensor.nd4j;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendConformanceTest;

/** The ND4J backend, on two threads so that OpenBLAS's threaded paths are exercised too. */
class Nd4jBackendConformanceTest extends TensorBackendConformanceTest {

    @Override
    protected TensorBackend backendUnderTest() {
        return new Nd4jBackendProvider().create(2);
    }
}

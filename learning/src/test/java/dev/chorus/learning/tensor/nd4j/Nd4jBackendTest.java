package dev.chorus.learning.tensor.nd4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;

class Nd4jBackendTest {

    private final Nd4jBackendProvider provider = new Nd4jBackendProvider();

    @Test
    void providerAdvertisesARankedCpuBackendThatLoadsHere() {
        assertThat(provider.name()).isEqualTo("nd4j");
        assertThat(provider.rank()).isEqualTo(100);
        assertThat(provider.cpu()).isTrue();
        assertThat(provider.unavailableReason()).isEmpty();
        try (Nd4jBackend backend = (Nd4jBackend) provider.create(1)) {
            assertThat(backend.name()).isEqualTo("nd4j");
            assertThat(backend.threads()).isEqualTo(1);
            assertThat(backend.blasDescription()).startsWith("OpenBLAS");
        }
    }

    @Test
    void defaultThreadCountIsOnePerProcessor() {
        try (Nd4jBackend backend = new Nd4jBackend(0)) {
            assertThat(backend.threads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        }
    }

    @Test
    void nativeLoadingFailuresBecomeOneLine() {
        Optional<String> missing = Nd4jBackendProvider.probe("Linux", "amd64", () -> {
            throw new ExceptionInInitializerError(
                    new UnsatisfiedLinkError("no jnind4jcpu in java.library.path:\n  /usr/lib\n  /lib"));
        });
        assertThat(missing)
                .hasValue("ND4J native libraries failed to load: UnsatisfiedLinkError: no jnind4jcpu in"
                        + " java.library.path: /usr/lib /lib");
        assertThat(Nd4jBackendProvider.probe("Linux", "amd64", () -> {
                    throw new NoClassDefFoundError();
                }))
                .hasValue("ND4J native libraries failed to load: NoClassDefFoundError");
        assertThat(Nd4jBackendProvider.probe("Mac OS X", "aarch64", () -> {
                    throw new AssertionError("must not try to load on an unsupported platform");
                }))
                .hasValue("ND4J's native code on the class path is for linux-x86_64, this is Mac OS X/aarch64");
        assertThat(Nd4jBackendProvider.probe("Linux", "amd64", () -> {})).isEmpty();
    }

    @Test
    void closedTensorsFailClearlyAndViewsDoNotCloseTheirBase() {
        try (Nd4jBackend backend = new Nd4jBackend(1)) {
            Tensor base = backend.fromHost(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
            Tensor view = backend.view(base, 2, 1, 3);
            view.close();
            assertThat(backend.sum(view)).isEqualTo(12f);
            base.close();
            base.close(); // idempotent
            assertThatThrownBy(() -> backend.sum(view))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThatThrownBy(() -> backend.gemm(false, false, 1f, base, view, 0f, base))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void closingTheBackendClosesItsTensors() {
        Nd4jBackend backend = new Nd4jBackend(1);
        Tensor t = backend.zeros(4, 4);
        backend.close();
        assertThat(t.toString()).contains("closed");
        assertThatThrownBy(() -> backend.fill(t, 1f)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> backend.zeros(1, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the nd4j backend is closed");
    }

    @Test
    void indArrayViewSharesStorage() {
        try (Nd4jBackend backend = new Nd4jBackend(1)) {
            Tensor base = backend.zeros(3, 4);
            Nd4jTensor view = (Nd4jTensor) backend.view(base, 5, 2, 2);
            INDArray array = view.asINDArray();
            assertThat(array.shape()).containsExactly(2, 2);
            array.putScalar(1, 0, 7.0);
            float[] host = new float[12];
            backend.copyToHost(base, host, 0);
            assertThat(host[7]).isEqualTo(7f);
            backend.fill(view, 2f);
            assertThat(array.sumNumber().floatValue()).isEqualTo(8f);
        }
    }

    @Test
    void outputsThatHalfOverlapAnInputAreRejected() {
        try (Nd4jBackend backend = new Nd4jBackend(1)) {
            Tensor base = backend.zeros(1, 10);
            Tensor a = backend.view(base, 0, 1, 6), out = backend.view(base, 3, 1, 6);
            assertThatThrownBy(() -> backend.add(a, a, out))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("partly overlaps");
        }
    }

    /**
     * The training hot path allocates nothing on the Java heap: a whole MLP-style step (forward,
     * loss, backward, SGD) over views of one flat parameter vector, once warm.
     */
    @Test
    void aTrainingStepAllocatesNothingOnceWarm() {
        var threadBean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Nd4jBackend backend = new Nd4jBackend(1)) {
            int batch = 8, in = 12, hidden = 16, classes = 4;
            int params = in * hidden + hidden + hidden * classes + classes;
            Tensor flat = backend.zeros(1, params),
                    grads = backend.zeros(1, params),
                    velocity = backend.zeros(1, params);
            Tensor w1 = backend.view(flat, 0, in, hidden), b1 = backend.view(flat, in * hidden, 1, hidden);
            Tensor w2 = backend.view(flat, in * hidden + hidden, hidden, classes);
            Tensor b2 = backend.view(flat, params - classes, 1, classes);
            Tensor gw1 = backend.view(grads, 0, in, hidden), gb1 = backend.view(grads, in * hidden, 1, hidden);
            Tensor gw2 = backend.view(grads, in * hidden + hidden, hidden, classes);
            Tensor gb2 = backend.view(grads, params - classes, 1, classes);
            backend.fill(flat, 0.05f);
            Tensor x = backend.zeros(batch, in), y = backend.zeros(batch, classes), h = backend.zeros(batch, hidden);
            Tensor logits = backend.zeros(batch, classes), dLogits = backend.zeros(batch, classes);
            Tensor dh = backend.zeros(batch, hidden);
            backend.fill(x, 0.5f);
            backend.fill(y, 0.25f);
            Runnable step = () -> {
                backend.gemm(false, false, 1f, x, w1, 0f, h);
                backend.addRowVector(h, b1);
                backend.activation(Activation.RELU, h, h);
                backend.gemm(false, false, 1f, h, w2, 0f, logits);
                backend.addRowVector(logits, b2);
                backend.softmaxCrossEntropy(logits, y, null, dLogits);
                backend.gemm(true, false, 1f, h, dLogits, 0f, gw2);
                backend.sumRows(dLogits, 0f, gb2);
                backend.gemm(false, true, 1f, dLogits, w2, 0f, dh);
                backend.activationBackward(Activation.RELU, h, dh, dh);
                backend.gemm(true, false, 1f, x, dh, 0f, gw1);
                backend.sumRows(dh, 0f, gb1);
                backend.sgdStep(flat, grads, velocity, 0.01f, 0.9f, 1e-4f, false);
            };
            for (int i = 0; i < 20_000; i++) {
                step.run();
            }
            int steps = 2_000;
            long before = threadBean.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < steps; i++) {
                step.run();
            }
            long allocated = threadBean.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated / (double) steps)
                    .as("bytes allocated per training step (%d in %d steps)", allocated, steps)
                    .isLessThan(8.0);
        }
    }
}

package dev.chorus.learning.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

/** Hand-computed forward passes and the misuse errors of the layers. */
class LayerTest {

    private final TensorBackend backend = new ReferenceBackend();

    private static float[] host(TensorBackend backend, Tensor t) {
        float[] out = new float[(int) t.size()];
        backend.copyToHost(t, out, 0);
        return out;
    }

    private void bindWith(Layer layer, float... params) {
        layer.bind(backend, backend.fromHost(params, 1, params.length), backend.zeros(1, params.length));
    }

    @Test
    void convolutionOutputIsNhwc() {
        // 3x3 single-channel image, 2x2 kernel, stride 1, no padding, 2 filters:
        // filter 0 sums its window, filter 1 takes the top-left pixel; biases 0 and 10.
        ConvGeometry g = new ConvGeometry(3, 3, 1, 2, 2, 1, 0);
        Conv2d conv = new Conv2d(g, 2);
        // weights taps x filters, row = tap (ky, kx), then bias
        bindWith(conv, 1, 1, 1, 0, 1, 0, 1, 0, 0, 10);
        float[] image = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        float[] out = host(backend, conv.forward(backend.fromHost(image, 1, 9)));
        // output pixel (y, x), channel fastest
        assertThat(out).containsExactly(12, 11, 16, 12, 24, 14, 28, 15);
    }

    @Test
    void convolutionGeometryNeedsTheKernelToFitThePaddedImage() {
        assertThat(new ConvGeometry(28, 28, 1, 5, 5, 1, 2).outHeight()).isEqualTo(28);
        assertThat(new ConvGeometry(1, 1, 1, 3, 3, 2, 1).outWidth()).isEqualTo(1);
        // 1 + 0 - 3 = -2, which integer division by the stride would round to an output of 0 + 1.
        assertThatThrownBy(() -> new ConvGeometry(1, 5, 1, 3, 3, 2, 0))
                .hasMessageContaining("larger than the padded image");
    }

    @Test
    void convolutionBackwardNeedsItsOwnForward() {
        Conv2d conv = new Conv2d(new ConvGeometry(3, 3, 1, 2, 2, 1, 0), 1);
        bindWith(conv, 1, 1, 1, 1, 0);
        conv.forward(backend.fromHost(new float[9], 1, 9));
        Tensor grad = backend.zeros(1, 4);
        conv.backward(grad, true);
        assertThatThrownBy(() -> conv.backward(grad, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("each backward needs its own forward");
    }

    @Test
    void maxPoolPicksWindowMaxima() {
        MaxPool2d pool = new MaxPool2d(new PoolGeometry(2, 4, 1, 2, 2));
        pool.bind(backend, null, null);
        float[] out = host(backend, pool.forward(backend.fromHost(new float[] {1, 5, 2, 0, 3, 4, -1, 7}, 1, 8)));
        assertThat(out).containsExactly(5, 7);
        float[] dx = host(backend, pool.backward(backend.fromHost(new float[] {10, 20}, 1, 2), true));
        assertThat(dx).containsExactly(0, 10, 0, 0, 0, 0, 0, 20);
    }

    @Test
    void activationLayerAppliesItsFunction() {
        ActivationLayer relu = new ActivationLayer(Activation.RELU, 3);
        relu.bind(backend, null, null);
        assertThat(host(backend, relu.forward(backend.fromHost(new float[] {-1, 0.5f, 2}, 1, 3))))
                .containsExactly(0, 0.5f, 2);
        assertThatThrownBy(() -> new ActivationLayer(Activation.IDENTITY, 3))
                .hasMessageContaining("needs relu, tanh or sigmoid");
    }

    @Test
    void misuseIsReportedInOneLine() {
        Dense dense = new Dense(2, 3);
        assertThatThrownBy(() -> dense.forward(backend.zeros(1, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("dense 2->3 is not bound to a model");
        assertThatThrownBy(() -> dense.bind(backend, backend.zeros(1, 5), backend.zeros(1, 9)))
                .hasMessage("layer needs 9 parameters, got views of 5 and 9");
        bindWith(dense, new float[9]);
        assertThatThrownBy(() -> dense.bind(backend, backend.zeros(1, 9), backend.zeros(1, 9)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> dense.backward(backend.zeros(1, 3), true))
                .hasMessage("dense 2->3: backward before forward");
        dense.forward(backend.zeros(4, 2));
        assertThatThrownBy(() -> dense.backward(backend.zeros(3, 3), true))
                .hasMessage("dense 2->3 expects a 4x3 output gradient, got 3x3");
        assertThatThrownBy(() -> dense.forward(new ReferenceBackend().zeros(1, 2)))
                .hasMessageContaining("not to the layer's reference");
        assertThatThrownBy(() -> new Dense(0, 3)).hasMessage("dense layer sizes must be positive, got 0->3");
        assertThatThrownBy(() -> new Conv2d(new ConvGeometry(3, 3, 1, 2, 2, 1, 0), 0))
                .hasMessage("convolution needs a positive filter count, got 0");
    }

    @Test
    void batchBufferHandsOutViewsOfOneGrowingStorage() {
        try (BatchBuffer buffer = new BatchBuffer(backend, 6)) {
            Tensor eight = buffer.rows(8);
            Tensor three = buffer.rows(3);
            assertThat(three.rows()).isEqualTo(3);
            assertThat(buffer.rows(8)).isSameAs(eight);
            assertThat(buffer.rows(3)).isSameAs(three);
            Tensor pixels = buffer.reshaped(3, 2);
            assertThat(pixels.rows()).isEqualTo(6);
            assertThat(pixels.cols()).isEqualTo(3);
            backend.fill(three, 2f);
            assertThat(host(backend, pixels)).containsOnly(2f);
            Tensor bigger = buffer.rows(9);
            assertThat(bigger.rows()).isEqualTo(9);
            assertThat(buffer.rows(3)).isNotSameAs(three);
            assertThatThrownBy(() -> buffer.reshaped(2, 4)).hasMessage("4 rows per sample do not divide width 6");
            assertThatThrownBy(() -> buffer.rows(0)).hasMessage("batch size must be positive, got 0");
        }
    }
}

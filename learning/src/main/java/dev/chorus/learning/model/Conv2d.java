package dev.chorus.learning.model;

import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A 2-D convolution over channels-last (NHWC) images, computed as im2col followed by one gemm
 * (Chellapilla, Puri and Simard, "High Performance Convolutional Neural Networks for Document
 * Processing", 2006). The weights are a {@code taps x filters} matrix ({@link ConvGeometry#taps()})
 * and the bias has one entry per filter; in the flat parameter vector, weights come first.
 *
 * <p>Since the patch matrix has one row per output pixel, {@code patches x W} is the output in NHWC
 * order already. Backward: {@code dW = patches^T dY}, {@code db = column sums of dY}, and the input
 * gradient is col2im of {@code dY W^T}.
 *
 * <p>To save memory, the input-gradient pass reuses the patch matrix, so each {@link #backward}
 * needs its own {@link #forward} first.
 */
public final class Conv2d implements Layer {

    private final ConvGeometry geometry;
    private final int filters;
    private final int pixels;
    private TensorBackend backend;
    private Tensor weights;
    private Tensor bias;
    private Tensor weightGrad;
    private Tensor biasGrad;
    private BatchBuffer patches;
    private BatchBuffer output;
    private BatchBuffer inputGrad;
    private Tensor lastInput;
    private Tensor lastPatches;
    private boolean patchesValid;
    private Tensor gradOutputSeen;
    private Tensor gradOutputMatrix;

    public Conv2d(ConvGeometry geometry, int filters) {
        if (geometry == null) {
            throw new IllegalArgumentException("convolution needs a geometry");
        }
        if (filters <= 0) {
            throw new IllegalArgumentException("convolution needs a positive filter count, got " + filters);
        }
        this.geometry = geometry;
        this.filters = filters;
        this.pixels = geometry.outHeight() * geometry.outWidth();
    }

    public ConvGeometry geometry() {
        return geometry;
    }

    public int filters() {
        return filters;
    }

    @Override
    public int inputSize() {
        return geometry.inputSize();
    }

    @Override
    public int outputSize() {
        return pixels * filters;
    }

    @Override
    public int parameterCount() {
        return geometry.taps() * filters + filters;
    }

    /** The {@code taps x filters} weight view (valid once bound). */
    public Tensor weights() {
        return weights;
    }

    /** The {@code 1 x filters} bias view (valid once bound). */
    public Tensor bias() {
        return bias;
    }

    @Override
    public void bind(TensorBackend backend, Tensor parameters, Tensor gradients) {
        LayerChecks.bindOnce(this.backend, parameters, gradients, parameterCount());
        this.backend = backend;
        int taps = geometry.taps();
        weights = backend.view(parameters, 0, taps, filters);
        bias = backend.view(parameters, (long) taps * filters, 1, filters);
        weightGrad = backend.view(gradients, 0, taps, filters);
        biasGrad = backend.view(gradients, (long) taps * filters, 1, filters);
        patches = new BatchBuffer(backend, pixels * taps);
        output = new BatchBuffer(backend, pixels * filters);
        inputGrad = new BatchBuffer(backend, geometry.inputSize());
    }

    @Override
    public void initialize(WeightInit init, SplittableRandom random, float[] parameters, int offset) {
        int taps = geometry.taps();
        int fanOut = geometry.kernelHeight() * geometry.kernelWidth() * filters;
        init.fill(random, parameters, offset, taps * filters, taps, fanOut);
        Arrays.fill(parameters, offset + taps * filters, offset + taps * filters + filters, 0f);
    }

    @Override
    public Tensor forward(Tensor input) {
        LayerChecks.input(this, backend, input);
        int batch = input.rows();
        Tensor cols = patches.reshaped(batch, pixels);
        backend.im2col(input, geometry, cols);
        Tensor y = output.reshaped(batch, pixels);
        backend.gemm(false, false, 1f, cols, weights, 0f, y);
        backend.addRowVector(y, bias);
        lastInput = input;
        lastPatches = cols;
        patchesValid = true;
        return output.rows(batch);
    }

    @Override
    public Tensor backward(Tensor gradOutput, boolean propagate) {
        LayerChecks.gradOutput(this, lastInput, gradOutput);
        if (!patchesValid) {
            throw new IllegalStateException(describe() + ": each backward needs its own forward");
        }
        int batch = gradOutput.rows();
        Tensor dy = gradOutputAsMatrix(gradOutput);
        backend.gemm(true, false, 1f, lastPatches, dy, 0f, weightGrad);
        backend.sumRows(dy, 0f, biasGrad);
        if (!propagate) {
            return null;
        }
        // The patches are no longer needed: their buffer receives dY W^T.
        backend.gemm(false, true, 1f, dy, weights, 0f, lastPatches);
        patchesValid = false;
        Tensor dx = inputGrad.rows(batch);
        backend.col2im(lastPatches, geometry, dx);
        return dx;
    }

    /** {@code gradOutput} seen as one row per output pixel; the view is kept while the tensor is. */
    private Tensor gradOutputAsMatrix(Tensor gradOutput) {
        if (gradOutput != gradOutputSeen) {
            gradOutputMatrix = backend.view(gradOutput, 0, gradOutput.rows() * pixels, filters);
            gradOutputSeen = gradOutput;
        }
        return gradOutputMatrix;
    }

    @Override
    public String describe() {
        return "conv " + geometry.kernelHeight() + "x" + geometry.kernelWidth() + "x" + filters + " stride "
                + geometry.stride() + " pad " + geometry.padding() + " on " + geometry.height() + "x"
                + geometry.width() + "x" + geometry.channels();
    }

    @Override
    public void close() {
        if (patches != null) {
            patches.close();
            output.close();
            inputGrad.close();
        }
        lastInput = null;
        lastPatches = null;
        gradOutputSeen = null;
        gradOutputMatrix = null;
        patchesValid = false;
    }
}

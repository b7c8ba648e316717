package dev.chorus.gpu.kernel;

import static dev.chorus.gpu.kernel.KernelParam.F32;
import static dev.chorus.gpu.kernel.KernelParam.F64;
import static dev.chorus.gpu.kernel.KernelParam.I32;
import static dev.chorus.gpu.kernel.KernelParam.I64;
import static dev.chorus.gpu.kernel.KernelParam.PTR;

import java.util.List;

/**
 * Every kernel of {@code src/main/cuda}, with the module it lives in and its parameter list in
 * order. The lists must match the {@code extern "C"} signatures; {@code KernelSignatureTest}
 * checks them against the {@code .entry} declarations of the committed PTX.
 */
public enum Kernel {
    ADD(KernelModule.ELEMENTWISE, "chorus_add", PTR, PTR, PTR, I64),
    SUB(KernelModule.ELEMENTWISE, "chorus_sub", PTR, PTR, PTR, I64),
    MUL(KernelModule.ELEMENTWISE, "chorus_mul", PTR, PTR, PTR, I64),
    /** x, alpha, n. */
    SCALE(KernelModule.ELEMENTWISE, "chorus_scale", PTR, F32, I64),
    /** alpha, x, y, n. */
    AXPY(KernelModule.ELEMENTWISE, "chorus_axpy", F32, PTR, PTR, I64),
    /** m, row, rows, cols. */
    ADD_ROW_VECTOR(KernelModule.ELEMENTWISE, "chorus_add_row_vector", PTR, PTR, I32, I32),
    /** kind, in, out, n. */
    ACTIVATION(KernelModule.ELEMENTWISE, "chorus_activation", I32, PTR, PTR, I64),
    /** kind, out, gradOut, gradIn, n. */
    ACTIVATION_BACKWARD(KernelModule.ELEMENTWISE, "chorus_activation_backward", I32, PTR, PTR, PTR, I64),

    /** x, y (or null), n, partials. */
    DOT_PARTIAL(KernelModule.REDUCE, "chorus_dot_partial", PTR, PTR, I64, PTR),
    /** partials, count, scale, result. */
    FINISH_SUM(KernelModule.REDUCE, "chorus_finish_sum", PTR, I32, F64, PTR),
    /** m, rows, cols, rowsPerChunk, partials. */
    SUM_ROWS_PARTIAL(KernelModule.REDUCE, "chorus_sum_rows_partial", PTR, I32, I32, I32, PTR),
    /** partials, chunks, cols, beta, out. */
    SUM_ROWS_FINISH(KernelModule.REDUCE, "chorus_sum_rows_finish", PTR, I32, I32, F32, PTR),

    /** logits, targets, probs, grad, rows, cols, invBatch, rowLoss. */
    SOFTMAX_XENT(KernelModule.LOSS, "chorus_softmax_xent", PTR, PTR, PTR, PTR, I32, I32, F32, PTR),
    /** logits, targets, probs, grad, n, invN, partials. */
    SIGMOID_XENT(KernelModule.LOSS, "chorus_sigmoid_xent", PTR, PTR, PTR, PTR, I64, F32, PTR),

    /** images, batch, height, width, channels, kh, kw, stride, pad, outH, outW, cols. */
    IM2COL(KernelModule.CONV, "chorus_im2col", PTR, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, PTR),
    /** cols, batch, height, width, channels, kh, kw, stride, pad, outH, outW, images. */
    COL2IM(KernelModule.CONV, "chorus_col2im", PTR, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, PTR),
    /** in, batch, height, width, channels, size, stride, outH, outW, out, argmax. */
    MAX_POOL(KernelModule.CONV, "chorus_max_pool", PTR, I32, I32, I32, I32, I32, I32, I32, I32, PTR, PTR),
    /** gradOut, argmax, batch, height, width, channels, size, stride, outH, outW, gradIn. */
    MAX_POOL_BACKWARD(
            KernelModule.CONV, "chorus_max_pool_backward", PTR, PTR, I32, I32, I32, I32, I32, I32, I32, I32, PTR),

    /** p, grad, v (or null), n, lr, momentum, weightDecay, nesterov. */
    SGD(KernelModule.OPTIM, "chorus_sgd", PTR, PTR, PTR, I64, F32, F32, F32, I32),
    /** p, grad, m, v, n, stepSize, beta1, beta2, epsilon, weightDecay, bc2Sqrt. */
    ADAM(KernelModule.OPTIM, "chorus_adam", PTR, PTR, PTR, PTR, I64, F32, F32, F32, F32, F32, F32);

    /** Threads per block of every kernel ({@code CHORUS_BLOCK} in {@code chorus_common.cuh}). */
    public static final int BLOCK = 256;

    private final KernelModule module;
    private final String symbol;
    private final List<KernelParam> params;

    Kernel(KernelModule module, String symbol, KernelParam... params) {
        this.module = module;
        this.symbol = symbol;
        this.params = List.of(params);
    }

    public KernelModule module() {
        return module;
    }

    /** The PTX entry name. */
    public String symbol() {
        return symbol;
    }

    public List<KernelParam> params() {
        return params;
    }

    /** The most parameters any kernel takes. */
    public static int maxParams() {
        int max = 0;
        for (Kernel k : values()) {
            max = Math.max(max, k.params.size());
        }
        return max;
    }
}

// Element-wise kernels: arithmetic, BLAS level-1 updates (axpy and scale, which the averaging
// engine uses), the bias broadcast, and the activations with their gradients. All are memory bound:
// one coalesced pass over the data, outputs may alias inputs (each element is read before it is
// written, by the same thread).
#include "chorus_common.cuh"

// Must match dev.chorus.gpu.kernel.ActivationCode.
#define CHORUS_IDENTITY 0
#define CHORUS_RELU 1
#define CHORUS_SIGMOID 2
#define CHORUS_TANH 3

extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_add(const float* a, const float* b, float* out, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_sub(const float* a, const float* b, float* out, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        out[i] = a[i] - b[i];
    }
}

extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_mul(const float* a, const float* b, float* out, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        out[i] = a[i] * b[i];
    }
}

// x *= alpha. An explicit round-to-nearest multiply, so that it is never fused with anything.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_scale(float* x, float alpha, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        x[i] = __fmul_rn(alpha, x[i]);
    }
}

// y += alpha * x, one fused multiply-add per element.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_axpy(float alpha, const float* x, float* y, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        y[i] = fmaf(alpha, x[i], y[i]);
    }
}

// m[i][j] += row[j] over a rows x cols row-major matrix. Tensors hold fewer than 2^31 elements,
// so the column is found with a 32-bit remainder (a 64-bit one costs several times more).
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_add_row_vector(float* m, const float* row, int rows, int cols) {
    long long n = (long long)rows * cols;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        m[i] += row[(unsigned int)i % (unsigned int)cols];
    }
}

__device__ __forceinline__ float chorus_activate(int kind, float x) {
    switch (kind) {
        case CHORUS_RELU:
            return x > 0.0f ? x : 0.0f;
        case CHORUS_SIGMOID:
            return 1.0f / (1.0f + expf(-x));
        case CHORUS_TANH:
            return tanhf(x);
        default:
            return x;
    }
}

// The derivative through the activation's output y = f(x).
__device__ __forceinline__ float chorus_derivative(int kind, float y) {
    switch (kind) {
        case CHORUS_RELU:
            return y > 0.0f ? 1.0f : 0.0f;
        case CHORUS_SIGMOID:
            return y * (1.0f - y);
        case CHORUS_TANH:
            return 1.0f - y * y;
        default:
            return 1.0f;
    }
}

extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_activation(int kind, const float* in, float* out, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        out[i] = chorus_activate(kind, in[i]);
    }
}

extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_activation_backward(int kind, const float* out, const float* grad_out, float* grad_in, long long n) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        grad_in[i] = grad_out[i] * chorus_derivative(kind, out[i]);
    }
}

// Fused losses: one pass computes the probabilities, the gradient and each row's loss; a second
// kernel (chorus_finish_sum in reduce.cu) averages the losses. The only value that returns to the
// host is the mean loss.
#include "chorus_common.cuh"

// Softmax cross-entropy, one warp per row of a rows x cols matrix (8 rows per block of 256).
// probs and grad may be null; either may alias logits or targets (each element is read before it is
// written, by the same lane). grad = (softmax - targets) * inv_batch. row_loss[r] receives
// -sum_j targets[r][j] * log_softmax[r][j], with log-sum-exp shifted by the row maximum.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_softmax_xent(const float* logits, const float* targets, float* probs, float* grad, int rows, int cols,
                    float inv_batch, double* row_loss) {
    int lane = threadIdx.x & 31;
    long long row = (long long)blockIdx.x * (CHORUS_BLOCK / 32) + (threadIdx.x >> 5);
    if (row >= rows) {
        return;
    }
    const float* x = logits + row * cols;
    const float* y = targets + row * cols;
    float max = -INFINITY;
    for (int j = lane; j < cols; j += 32) {
        max = fmaxf(max, x[j]);
    }
    max = chorus_warp_max(max);
    float z = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        z += expf(x[j] - max);
    }
    z = chorus_warp_sum_all(z);
    double log_z = log((double)z) + (double)max;
    float inv_z = 1.0f / z;
    double loss = 0.0;
    for (int j = lane; j < cols; j += 32) {
        float xj = x[j];
        float yj = y[j];
        if (yj != 0.0f) {
            loss -= (double)yj * ((double)xj - log_z);
        }
        float p = expf(xj - max) * inv_z;
        if (probs != nullptr) {
            probs[row * cols + j] = p;
        }
        if (grad != nullptr) {
            grad[row * cols + j] = (p - yj) * inv_batch;
        }
    }
    loss = chorus_warp_sum(loss);
    if (lane == 0) {
        row_loss[row] = loss;
    }
}

// Element-wise sigmoid binary cross-entropy over n logits: probs = sigmoid(x) (may be null),
// grad = (sigmoid(x) - y) * inv_n (may be null), and partials[blockIdx.x] = this block's share of
// sum(max(x, 0) - x y + log(1 + e^-|x|)).
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_sigmoid_xent(const float* logits, const float* targets, float* probs, float* grad, long long n,
                    float inv_n, double* partials) {
    double acc = 0.0;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        float x = logits[i];
        float y = targets[i];
        acc += (double)fmaxf(x, 0.0f) - (double)x * (double)y + (double)log1pf(expf(-fabsf(x)));
        float s = 1.0f / (1.0f + expf(-x));
        if (probs != nullptr) {
            probs[i] = s;
        }
        if (grad != nullptr) {
            grad[i] = (s - y) * inv_n;
        }
    }
    double total = chorus_block_sum(acc);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
    }
}

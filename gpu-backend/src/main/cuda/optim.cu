// Fused optimizer updates: one pass reads parameters, gradients and state and writes them back, so
// an update costs one trip through memory whatever the number of terms.
#include "chorus_common.cuh"

// SGD with momentum and L2 weight decay, PyTorch's formulation (see TensorBackend#sgdStep):
// g = grad + wd p; v = momentum v + g; p -= lr (nesterov ? g + momentum v : v). v is null when
// momentum is 0.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_sgd(float* p, const float* grad, float* v, long long n, float lr, float momentum, float weight_decay,
           int nesterov) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        float pi = p[i];
        float g = grad[i] + weight_decay * pi;
        float step = g;
        if (v != nullptr) {
            float vi = momentum * v[i] + g;
            v[i] = vi;
            step = nesterov ? g + momentum * vi : vi;
        }
        p[i] = pi - lr * step;
    }
}

// Adam with L2 weight decay added to the gradient (see TensorBackend#adamStep). The host passes the
// bias corrections for this step: step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t).
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_adam(float* p, const float* grad, float* m, float* v, long long n, float step_size, float beta1, float beta2,
            float epsilon, float weight_decay, float bc2_sqrt) {
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        float pi = p[i];
        float g = grad[i] + weight_decay * pi;
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        p[i] = pi - step_size * mi / (sqrtf(vi) / bc2_sqrt + epsilon);
    }
}

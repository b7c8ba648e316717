// Convolution lowering and max pooling over channels-last (NHWC) images; see ConvGeometry and
// PoolGeometry in dev.chorus.learning.tensor for the layouts. The adjoints (col2im, pooling
// backward) gather into each input pixel instead of scattering with atomics, so they are
// deterministic and need no zeroing pass. Every tensor holds fewer than 2^31 elements, so flat
// indices are split into coordinates with 32-bit unsigned arithmetic, several times cheaper on the
// GPU than 64-bit division.
#include "chorus_common.cuh"

// One thread per element of the (batch * out_h * out_w) x (kh * kw * channels) patch matrix.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_im2col(const float* images, int batch, int height, int width, int channels, int kh, int kw, int stride,
              int pad, int out_h, int out_w, float* cols) {
    unsigned int taps = (unsigned int)(kh * kw * channels);
    long long n = (long long)batch * out_h * out_w * taps;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        unsigned int u = (unsigned int)i;
        unsigned int row = u / taps;
        int tap = (int)(u - row * taps);
        int ch = tap % channels;
        int kx = (tap / channels) % kw;
        int ky = tap / (channels * kw);
        int ox = (int)(row % (unsigned int)out_w);
        int oy = (int)((row / (unsigned int)out_w) % (unsigned int)out_h);
        unsigned int image = row / (unsigned int)(out_w * out_h);
        int iy = oy * stride - pad + ky;
        int ix = ox * stride - pad + kx;
        float v = 0.0f;
        if (iy >= 0 && iy < height && ix >= 0 && ix < width) {
            v = images[(long long)image * height * width * channels + (iy * width + ix) * channels + ch];
        }
        cols[i] = v;
    }
}

// One thread per input pixel and channel: the sum of every patch entry that was taken from it.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_col2im(const float* cols, int batch, int height, int width, int channels, int kh, int kw, int stride,
              int pad, int out_h, int out_w, float* images) {
    unsigned int pixels = (unsigned int)(height * width * channels);
    long long n = (long long)batch * pixels;
    long long taps = (long long)kh * kw * channels;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        unsigned int u = (unsigned int)i;
        unsigned int image = u / pixels;
        int p = (int)(u - image * pixels);
        int ch = p % channels;
        int ix = (p / channels) % width;
        int iy = p / (channels * width);
        // Outputs (oy, ox) whose window takes this pixel: ky = iy + pad - oy * stride in [0, kh).
        int ay = iy + pad - kh + 1, ax = ix + pad - kw + 1;
        int oy_lo = ay <= 0 ? 0 : (ay + stride - 1) / stride;
        int oy_hi = min((iy + pad) / stride, out_h - 1);
        int ox_lo = ax <= 0 ? 0 : (ax + stride - 1) / stride;
        int ox_hi = min((ix + pad) / stride, out_w - 1);
        float sum = 0.0f;
        for (int oy = oy_lo; oy <= oy_hi; oy++) {
            int ky = iy + pad - oy * stride;
            for (int ox = ox_lo; ox <= ox_hi; ox++) {
                int kx = ix + pad - ox * stride;
                long long row = ((long long)image * out_h + oy) * out_w + ox;
                sum += cols[row * taps + (ky * kw + kx) * channels + ch];
            }
        }
        images[i] = sum;
    }
}

// One thread per output element; argmax receives, as a float, the index within the input row of
// the first maximum in row-major window order.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_max_pool(const float* in, int batch, int height, int width, int channels, int size, int stride, int out_h,
                int out_w, float* out, float* argmax) {
    unsigned int outputs = (unsigned int)(out_h * out_w * channels);
    long long n = (long long)batch * outputs;
    long long inputs = (long long)height * width * channels;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        unsigned int u = (unsigned int)i;
        unsigned int image = u / outputs;
        int o = (int)(u - image * outputs);
        int ch = o % channels;
        int ox = (o / channels) % out_w;
        int oy = o / (channels * out_w);
        const float* x = in + image * inputs;
        float best = 0.0f;
        int best_index = -1;
        for (int ky = 0; ky < size; ky++) {
            for (int kx = 0; kx < size; kx++) {
                int p = ((oy * stride + ky) * width + ox * stride + kx) * channels + ch;
                float v = x[p];
                if (best_index < 0 || v > best) {
                    best = v;
                    best_index = p;
                }
            }
        }
        out[i] = best;
        argmax[i] = (float)best_index;
    }
}

// One thread per input element: the sum of the output gradients whose argmax names it.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_max_pool_backward(const float* grad_out, const float* argmax, int batch, int height, int width, int channels,
                         int size, int stride, int out_h, int out_w, float* grad_in) {
    unsigned int inputs = (unsigned int)(height * width * channels);
    long long outputs = (long long)out_h * out_w * channels;
    long long n = (long long)batch * inputs;
    for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
        unsigned int u = (unsigned int)i;
        unsigned int image = u / inputs;
        int p = (int)(u - image * inputs);
        int ch = p % channels;
        int ix = (p / channels) % width;
        int iy = p / (channels * width);
        // Windows that contain (iy, ix): oy * stride <= iy < oy * stride + size.
        int oy_lo = iy < size ? 0 : (iy - size) / stride + 1;
        int oy_hi = min(iy / stride, out_h - 1);
        int ox_lo = ix < size ? 0 : (ix - size) / stride + 1;
        int ox_hi = min(ix / stride, out_w - 1);
        float sum = 0.0f;
        for (int oy = oy_lo; oy <= oy_hi; oy++) {
            for (int ox = ox_lo; ox <= ox_hi; ox++) {
                long long o = image * outputs + ((long long)oy * out_w + ox) * channels + ch;
                if ((int)argmax[o] == p) {
                    sum += grad_out[o];
                }
            }
        }
        grad_in[i] = sum;
    }
}

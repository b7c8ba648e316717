// Reductions. Every one runs in two deterministic passes: blocks write double-precision partial sums,
// then one block adds the partials in a fixed order. No atomics, so a run repeats bit for bit.
#include "chorus_common.cuh"

// partials[blockIdx.x] = this block's share of sum(x[i] * y[i]), or of sum(x[i]) when y is null.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_dot_partial(const float* x, const float* y, long long n, double* partials) {
    double acc = 0.0;
    if (y == nullptr) {
        for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
            acc += (double)x[i];
        }
    } else {
        for (long long i = CHORUS_FIRST; i < n; i += CHORUS_STRIDE) {
            acc += (double)x[i] * (double)y[i];
        }
    }
    double total = chorus_block_sum(acc);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
    }
}

// result[0] = scale * sum(partials[0 .. count)), run as one block.
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_finish_sum(const double* partials, int count, double scale, float* result) {
    double acc = 0.0;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        acc += partials[i];
    }
    double total = chorus_block_sum(acc);
    if (threadIdx.x == 0) {
        result[0] = (float)(scale * total);
    }
}

// Column sums of a rows x cols row-major matrix, first pass. Blocks are 32 x 8 threads: threadIdx.x
// picks the column (so a warp reads 32 consecutive floats), threadIdx.y one of 8 interleaved row
// subsets of this block's chunk of rows_per_chunk rows (blockIdx.y). Writes
// partials[blockIdx.y * cols + column].
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_sum_rows_partial(const float* m, int rows, int cols, int rows_per_chunk, double* partials) {
    __shared__ double sums[8][32];
    int column = blockIdx.x * 32 + threadIdx.x;
    long long first = (long long)blockIdx.y * rows_per_chunk;
    long long end = min(first + rows_per_chunk, (long long)rows);
    double acc = 0.0;
    if (column < cols) {
        for (long long r = first + threadIdx.y; r < end; r += 8) {
            acc += (double)m[r * cols + column];
        }
    }
    sums[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && column < cols) {
        double total = 0.0;
        for (int k = 0; k < 8; k++) {
            total += sums[k][threadIdx.x];
        }
        partials[(long long)blockIdx.y * cols + column] = total;
    }
}

// out[j] = beta * out[j] + sum over chunks of partials[chunk * cols + j]; with beta == 0 the prior
// contents of out are never read (they may be NaN).
extern "C" __global__ void __launch_bounds__(CHORUS_BLOCK)
chorus_sum_rows_finish(const double* partials, int chunks, int cols, float beta, float* out) {
    for (long long j = CHORUS_FIRST; j < cols; j += CHORUS_STRIDE) {
        double total = 0.0;
        for (int c = 0; c < chunks; c++) {
            total += partials[(long long)c * cols + j];
        }
        if (beta != 0.0f) {
            total += (double)beta * (double)out[j];
        }
        out[j] = (float)total;
    }
}
